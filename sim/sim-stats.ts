import type { SimStats } from './types.js';

/** Counters of one backend; `inFlight` and `openSockets` are live gauges that resets leave alone. */
export interface SimStatsRecorder {
  countRequest(kind: 'chat' | 'completion' | 'embedding' | 'responses' | 'other'): void;
  countFault(name: string): void;
  requestStarted(): void;
  requestEnded(): void;
  socketOpened(): void;
  socketClosed(): void;
  countStreamed(bytes: number): void;
  snapshot(): SimStats;
  reset(): void;
}

export function createSimStats(): SimStatsRecorder {
  let counts = {
    requests: 0,
    chatRequests: 0,
    completionRequests: 0,
    embeddingRequests: 0,
    responsesRequests: 0,
  };
  let byFault: Record<string, number> = {};
  let inFlight = 0;
  let openSockets = 0;
  let streamedBytes = 0;
  return {
    countRequest: (kind) => {
      counts.requests += 1;
      if (kind === 'chat') counts.chatRequests += 1;
      if (kind === 'completion') counts.completionRequests += 1;
      if (kind === 'embedding') counts.embeddingRequests += 1;
      if (kind === 'responses') counts.responsesRequests += 1;
    },
    countFault: (name) => {
      byFault[name] = (byFault[name] ?? 0) + 1;
    },
    requestStarted: () => {
      inFlight += 1;
    },
    requestEnded: () => {
      inFlight -= 1;
    },
    socketOpened: () => {
      openSockets += 1;
    },
    socketClosed: () => {
      openSockets -= 1;
    },
    countStreamed: (bytes) => {
      streamedBytes += bytes;
    },
    snapshot: () => ({ ...counts, byFault: { ...byFault }, inFlight, openSockets, streamedBytes }),
    reset: () => {
      counts = {
        requests: 0,
        chatRequests: 0,
        completionRequests: 0,
        embeddingRequests: 0,
        responsesRequests: 0,
      };
      byFault = {};
      streamedBytes = 0;
    },
  };
}
