import type { SpentTokens } from '../../policy/api-keys.js';
import {
  toLoggedPath,
  type RequestObserver,
  type RequestSummary,
  type TokenStatus,
} from '../../observe/request-summary.js';
import type { Clock } from '../../shared/clock.js';
import { isStopped, toRouterError } from '../../shared/errors.js';
import { toTierChangeLabel } from '../../shared/tier-change.js';
import type { AnswerUsage, Exchange, Outcome } from '../exchange.js';
import { toOutcomeAttributes } from '../request-span-attributes.js';
import { toUnreportedPromptTokens } from '../spend-bound.js';
import { toReportedCount, toSpentTokens } from '../spent-tokens.js';
import type { StageListener } from '../stages.js';

/** Ends an exchange once; a second call (the edge after the gateway, a stream after an error) does nothing. */
export type Settle = (exchange: Exchange, outcome: Outcome) => void;

/** Rough size of a token in characters, for estimates after a cut stream. */
const CHARS_PER_TOKEN = 4;

const NO_ANSWER: AnswerUsage = { usage: undefined, generatedChars: 0 };

function toCompletionTokens(
  answer: AnswerUsage,
  error: unknown,
): { completionTokens: number | undefined; tokenStatus: TokenStatus } {
  if (answer.usage !== undefined && error === undefined)
    return { completionTokens: answer.usage.completion_tokens, tokenStatus: 'confirmed' };
  if (answer.generatedChars > 0)
    return { completionTokens: Math.ceil(answer.generatedChars / CHARS_PER_TOKEN), tokenStatus: 'estimated' };
  return {
    completionTokens: answer.usage?.completion_tokens,
    tokenStatus: answer.usage === undefined ? 'unknown' : 'confirmed',
  };
}

/** Prompt tokens as reported by the upstream (confirmed), else autotier's count (estimated). */
function toPromptTokens(
  answer: AnswerUsage,
  exchange: Exchange,
): { promptTokens: number | undefined; promptTokenStatus: TokenStatus } {
  const reported = toReportedCount(answer.usage?.prompt_tokens);
  if (reported !== undefined) return { promptTokens: reported, promptTokenStatus: 'confirmed' };
  const { decision } = exchange;
  return decision === undefined
    ? { promptTokens: undefined, promptTokenStatus: 'unknown' }
    : { promptTokens: decision.promptTokens, promptTokenStatus: 'estimated' };
}

/**
 * What a key is charged: what the answer reported (or autotier's estimate of it); a request the
 * balancer failed, its prompt at autotier's count; one stopped before the balancer, nothing.
 */
export function toCharge(exchange: Exchange): SpentTokens {
  const { decision, usage } = exchange;
  if (decision === undefined) return { promptTokens: 0, completionTokens: 0 };
  if (usage !== undefined) return toSpentTokens(usage, toUnreportedPromptTokens(decision));
  const balanced = exchange.timings.balance !== undefined;
  return { promptTokens: balanced ? decision.promptTokens : 0, completionTokens: 0 };
}

/** The one summary of a settled exchange that logs, metrics and the dashboard read. No prompt or answer text unless content logging is on. */
export function toRequestSummary(exchange: Exchange, outcome: Outcome, endedAt: number): RequestSummary {
  const { decision, result } = exchange;
  const answer = exchange.usage ?? NO_ANSWER;
  const classification = decision?.classification;
  const error = outcome.error === undefined ? undefined : toRouterError(outcome.error);
  // No decision means autotier answered before routing (bad body, key, limit, context length).
  const routed = decision === undefined ? 'rejected' : 'routed';
  return {
    requestId: exchange.requestId,
    clientRequestId: exchange.clientRequestId,
    keyName: exchange.key?.name,
    endpoint: exchange.endpoint,
    outcome: routed,
    method: exchange.http.method,
    path: toLoggedPath(exchange.http.path),
    stream: exchange.stream,
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
    status: outcome.status,
    errorCode: error?.code,
    errorMessage:
      routed === 'rejected' || outcome.status >= 500 || (error !== undefined && isStopped(error))
        ? error?.message
        : undefined,
    attempts: result?.attempts.filter((attempt) => attempt.called).length ?? 0,
    fallbacks: result?.fallbacks ?? 0,
    ttftMs: result === undefined ? undefined : result.firstTokenAt - exchange.receivedAt,
    upstreamTtftMs: result?.ttftMs,
    durationMs: endedAt - exchange.receivedAt,
    ...toPromptTokens(answer, exchange),
    ...toCompletionTokens(answer, outcome.error),
    endedAt,
    ...(exchange.prompt === undefined
      ? {}
      : { content: { prompt: exchange.prompt, completion: answer.completionText ?? '' } }),
  };
}

/**
 * The last stage of every request, run once: frees the key's slot and reservation and charges what
 * was spent, reports the summary to the observer (logs, metrics, the dashboard), and sets the
 * outcome on the request's span. The gateway settles a routed request (a stream when it ends); the
 * edge settles what it rejects itself.
 */
export function createSettle(options: {
  clock: Clock;
  observer: Pick<RequestObserver, 'onRequest'>;
  onStage: StageListener | undefined;
}): Settle {
  const { clock, observer, onStage } = options;
  return (exchange, outcome) => {
    if (exchange.outcome !== undefined) return;
    const started = clock.now();
    exchange.outcome = outcome;
    const { admission } = exchange;
    if (admission !== undefined) {
      exchange.admission = undefined;
      void admission.finish(toCharge(exchange));
    }
    const summary = toRequestSummary(exchange, outcome, clock.now());
    observer.onRequest(summary);
    const span = exchange.trace;
    // a request the routed pipeline took (from parse on): its span gets the outcome
    if (span?.recording === true && exchange.timings.parse !== undefined) {
      span.setAttributes(
        toOutcomeAttributes({ summary, result: exchange.result, usage: exchange.usage?.usage }),
      );
      // a stream that broke after its 200: the failure is in-band, the span says it
      if (outcome.error !== undefined && outcome.status === 200) span.fail(toRouterError(outcome.error));
    }
    const ms = clock.now() - started;
    exchange.timings.settle = ms;
    onStage?.({ stage: 'settle', endpoint: exchange.endpoint, exchange, ms, error: outcome.error });
  };
}
