/** How sure autotier is of a token count. Never a silent 0. */
export type TokenStatus = 'confirmed' | 'estimated' | 'unknown';

/** One request as logs, metrics and the dashboard see it. No prompt or completion text. */
export interface RequestSummary {
  requestId: string;
  /** API key name, never the key. */
  keyName: string | undefined;
  endpoint: 'chat' | 'completions';
  stream: boolean;
  tier: string | undefined;
  complexity: string | undefined;
  cause: string | undefined;
  confidence: number | undefined;
  signals: readonly string[];
  llmCalled: boolean;
  classifierMs: { heuristic?: number; learned?: number; llm?: number };
  rules: readonly string[];
  deployment: string | undefined;
  /** HTTP status sent (200 for a stream that later failed in-band). */
  status: number;
  errorCode: string | undefined;
  attempts: number;
  fallbacks: number;
  ttftMs: number | undefined;
  durationMs: number;
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  tokenStatus: TokenStatus;
  /** Epoch ms at the end. */
  endedAt: number;
  /** Prompt (last user message) and completion text, only when `log_content: true`. */
  content?: { prompt: string; completion: string };
}

/** One upstream attempt (or a skipped candidate) as logs and metrics see it. */
export interface AttemptSummary {
  requestId: string;
  tier: string;
  deploymentId: string;
  attempt: number;
  outcome: string;
  called: boolean;
  fallback: boolean;
  durationMs: number;
}

/** Receives every request and attempt; logs, metrics and the dashboard implement it. */
export interface RequestObserver {
  onAttempt(attempt: AttemptSummary): void;
  onRequest(summary: RequestSummary): void;
}

export function combineObservers(observers: readonly RequestObserver[]): RequestObserver {
  return {
    onAttempt: (attempt) => observers.forEach((observer) => observer.onAttempt(attempt)),
    onRequest: (summary) => observers.forEach((observer) => observer.onRequest(summary)),
  };
}
