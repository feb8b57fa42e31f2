import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock, Random, Sleep } from '../src/shared/clock.js';
import type { FaultSpec } from './fault-spec.js';
import type { FaultState } from './fault-state.js';
import type { SimStatsRecorder } from './sim-stats.js';
import type { ReasoningMode, Responder, SimLatency } from './types.js';

/** What request handlers read from their backend; `settings()` reads the values tests may change live. */
export interface BackendContext {
  backendId: string;
  models: readonly string[];
  contextWindow: number;
  reasoningMode: ReasoningMode;
  /** Natural reply length in tokens when the request sets no x-sim-tokens; undefined = max_tokens. */
  answerTokens: number | undefined;
  /** Continues a final assistant message when asked (vLLM's `continue_final_message`). */
  continuation: boolean;
  /** The embedding model this backend serves, if any (SimBackendOptions.embedding). */
  embedding: { dimensions: number; matryoshka: boolean } | undefined;
  /** Serves POST /v1/responses. */
  responses: boolean;
  settings(): { fault: FaultSpec | undefined; latency: SimLatency; responder: Responder | undefined };
  faultState: FaultState;
  stats: SimStatsRecorder;
  random: Random;
  clock: Clock;
  sleep: Sleep;
  /** Makes a unique id with the given prefix. */
  nextId: (prefix: string) => string;
}

export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Aborts when the response closes. */
  signal: AbortSignal;
}
