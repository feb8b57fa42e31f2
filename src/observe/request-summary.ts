/** How sure autotier is of a token count. Never a silent 0. */
export type TokenStatus = 'confirmed' | 'estimated' | 'unknown';

/** The endpoints as logs and metrics name them; `unknown` for a path no route has. */
export type EndpointName =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'responses'
  | 'route'
  | 'models'
  | 'health'
  | 'ready'
  | 'metrics'
  | 'state'
  | 'dashboard'
  | 'unknown';

/**
 * `routed`: a routing decision was made (whatever happened next). `rejected`: autotier answered the
 * request itself before or instead of routing it (bad body, key, limit, unknown route, ...).
 */
export type RequestOutcome = 'routed' | 'rejected';

/** One request as logs, metrics and the dashboard see it. No prompt or completion text. */
export interface RequestSummary {
  /** autotier's id for the request. */
  requestId: string;
  /** The client's own id, bounded (printable ASCII, at most 128 characters), when it sent one. */
  clientRequestId?: string | undefined;
  /** API key name, never the key. */
  keyName: string | undefined;
  endpoint: EndpointName;
  outcome: RequestOutcome;
  /** Method and path as the client sent them (the path cut to 200 characters, no query string). */
  method: string;
  path: string;
  stream: boolean;
  tier: string | undefined;
  complexity: string | undefined;
  cause: string | undefined;
  /** For cause `cache`: the stage that made the cached decision (`heuristic`, `learned` or `llm`). */
  cacheStage?: string | undefined;
  confidence: number | undefined;
  signals: readonly string[];
  llmCalled: boolean;
  classifierMs: { heuristic?: number; learned?: number; llm?: number };
  rules: readonly string[];
  deployment: string | undefined;
  /** HTTP status sent (200 for a stream that later failed in-band). */
  status: number;
  errorCode: string | undefined;
  /**
   * The error's message, for rejections, 5xx answers and requests stopped by their client or a drain
   * (autotier's own words: a client that closed, one cut for not reading); upstream 4xx text is not repeated.
   */
  errorMessage?: string | undefined;
  attempts: number;
  fallbacks: number;
  ttftMs: number | undefined;
  /** The answering deployment's own time to first token, from its call (not from the request's arrival). */
  upstreamTtftMs?: number | undefined;
  durationMs: number;
  /** The upstream's reported prompt tokens, else autotier's count (see promptTokenStatus). */
  promptTokens: number | undefined;
  /** `confirmed`: promptTokens is the upstream's usage; `estimated`: autotier's count. @default 'estimated' */
  promptTokenStatus?: TokenStatus;
  completionTokens: number | undefined;
  /** How completionTokens was known: the upstream's usage, or estimated from the generated text. */
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

/** One stage of a request's pipeline that ran (src/gateway/stages.ts names them), as metrics see it. */
export interface StageTiming {
  stage: string;
  endpoint: EndpointName;
  ms: number;
  /** What the stage threw (it ended the request); undefined when it did not throw. */
  error: unknown;
}

/**
 * Receives every request (at settle), every upstream attempt and, if it wants them, every stage's
 * timing; logs, metrics and the dashboard implement it.
 */
export interface RequestObserver {
  onAttempt(attempt: AttemptSummary): void;
  onRequest(summary: RequestSummary): void;
  onStage?(timing: StageTiming): void;
}

export function combineObservers(observers: readonly RequestObserver[]): RequestObserver {
  const timed = observers.filter((observer) => observer.onStage !== undefined);
  return {
    onAttempt: (attempt) => observers.forEach((observer) => observer.onAttempt(attempt)),
    onRequest: (summary) => observers.forEach((observer) => observer.onRequest(summary)),
    ...(timed.length === 0
      ? {}
      : { onStage: (timing: StageTiming) => timed.forEach((observer) => observer.onStage?.(timing)) }),
  };
}

/** Longest path kept in a summary, in characters: the path is client text. */
const PATH_CHARS = 200;

export function toLoggedPath(path: string): string {
  return path.length > PATH_CHARS ? `${path.slice(0, PATH_CHARS)}…` : path;
}
