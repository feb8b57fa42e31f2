import type { ExecuteResult } from '../balance/balancer.js';
import {
  toLoggedPath,
  type RequestObserver,
  type RequestSummary,
  type TokenStatus,
} from '../observe/request-summary.js';
import type { Clock } from '../shared/clock.js';
import { isStopped, toRouterError } from '../shared/errors.js';
import type { Span } from '../shared/tracing.js';
import type { Usage } from '../upstream/chat-chunk.js';
import type { RouteDecision } from '../routing/decide-route.js';
import { toOutcomeAttributes } from './request-span-attributes.js';
import { toTierChangeLabel } from '../shared/tier-change.js';
import { toReportedCount } from './spent-tokens.js';

/** What the end of a response knows about tokens. */
export interface EndOfResponse {
  usage: Usage | undefined;
  /** Characters of generated text, for an estimate when the upstream reported no usage. */
  generatedChars: number;
  /** The generated text, collected only when content logging is on. */
  completionText?: string | undefined;
  error: unknown;
}

export interface RequestTracker {
  setKey(name: string | undefined): void;
  setDecision(decision: RouteDecision): void;
  setResult(result: ExecuteResult): void;
  /** Content logging on: the prompt text to log with the completion. */
  setPrompt(prompt: string): void;
  /** True when content logging is on for this request. */
  logsContent(): boolean;
  /** Ends the request once: success, in-band failure after commit, or an error before it. */
  end(end: EndOfResponse & { status: number }): void;
}

/** Rough size of a token in characters, for estimates after a cut stream. */
const CHARS_PER_TOKEN = 4;

function toTokens(end: EndOfResponse): { completionTokens: number | undefined; tokenStatus: TokenStatus } {
  if (end.usage !== undefined && end.error === undefined)
    return { completionTokens: end.usage.completion_tokens, tokenStatus: 'confirmed' };
  if (end.generatedChars > 0)
    return { completionTokens: Math.ceil(end.generatedChars / CHARS_PER_TOKEN), tokenStatus: 'estimated' };
  return {
    completionTokens: end.usage?.completion_tokens,
    tokenStatus: end.usage === undefined ? 'unknown' : 'confirmed',
  };
}

/** Prompt tokens as reported by the upstream (confirmed), else autotier's count (estimated). */
function toPromptTokens(
  end: EndOfResponse,
  decision: RouteDecision | undefined,
): { promptTokens: number | undefined; promptTokenStatus: TokenStatus } {
  const reported = toReportedCount(end.usage?.prompt_tokens);
  if (reported !== undefined) return { promptTokens: reported, promptTokenStatus: 'confirmed' };
  return decision === undefined
    ? { promptTokens: undefined, promptTokenStatus: 'unknown' }
    : { promptTokens: decision.promptTokens, promptTokenStatus: 'estimated' };
}

/** Collects what a request went through and reports it once to the observer. */
export function createRequestTracker(options: {
  observer: RequestObserver;
  clock: Clock;
  requestId: string;
  clientRequestId?: string | undefined;
  endpoint: RequestSummary['endpoint'];
  http: { method: string; path: string };
  stream: boolean;
  startedAt: number;
  /** The request's span: the outcome's attributes are set on it at the end. */
  span?: Span | undefined;
}): RequestTracker {
  let keyName: string | undefined;
  let decision: RouteDecision | undefined;
  let result: ExecuteResult | undefined;
  let ended = false;
  let prompt: string | undefined;
  return {
    setKey: (name) => (keyName = name),
    setDecision: (value) => (decision = value),
    setResult: (value) => (result = value),
    setPrompt: (value) => (prompt = value),
    logsContent: () => prompt !== undefined,
    end(end) {
      if (ended) return;
      ended = true;
      const classification = decision?.classification;
      const error = end.error === undefined ? undefined : toRouterError(end.error);
      // No decision means autotier answered before routing (bad body, key, limit, context length).
      const outcome = decision === undefined ? 'rejected' : 'routed';
      const summary: RequestSummary = {
        requestId: options.requestId,
        clientRequestId: options.clientRequestId,
        keyName,
        endpoint: options.endpoint,
        outcome,
        method: options.http.method,
        path: toLoggedPath(options.http.path),
        stream: options.stream,
        tier: decision?.plan.tier,
        complexity: decision?.complexity,
        cause: decision?.cause,
        cacheStage: classification?.cachedFrom,
        confidence: decision?.confidence,
        signals: classification?.signals ?? [],
        llmCalled: classification?.llmCalled ?? false,
        classifierMs: classification?.stageLatencyMs ?? {},
        rules: decision?.rules.map(toTierChangeLabel) ?? [],
        deployment: result?.deployment.id,
        status: end.status,
        errorCode: error?.code,
        errorMessage:
          outcome === 'rejected' || end.status >= 500 || (error !== undefined && isStopped(error))
            ? error?.message
            : undefined,
        attempts: result?.attempts.filter((attempt) => attempt.called).length ?? 0,
        fallbacks: result?.fallbacks ?? 0,
        ttftMs: result === undefined ? undefined : result.firstTokenAt - options.startedAt,
        upstreamTtftMs: result?.ttftMs,
        durationMs: options.clock.now() - options.startedAt,
        ...toPromptTokens(end, decision),
        ...toTokens(end),
        endedAt: options.clock.now(),
        ...(prompt === undefined ? {} : { content: { prompt, completion: end.completionText ?? '' } }),
      };
      options.observer.onRequest(summary);
      const { span } = options;
      if (span?.recording !== true) return;
      span.setAttributes(toOutcomeAttributes({ summary, result, usage: end.usage }));
      // a stream that broke after its 200: the failure is in-band, the span says it
      if (error !== undefined && end.status === 200) span.fail(error);
    },
  };
}
