import type { ExecuteResult } from '../balance/balancer.js';
import type { RequestSummary } from '../observe/request-summary.js';
import { toGenAiOperation, type SpanAttributes } from '../shared/tracing.js';
import type { Usage } from '../upstream/chat-chunk.js';

/**
 * The attributes of a routed request's span: the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/) plus `autotier.*`. Never prompt or answer
 * text, never a key: only names, numbers and codes.
 */

const numberOr = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/**
 * What the client asked for, as sent: `gen_ai.request.*`. Reads the parsed body's usual fields by
 * type, so any routed endpoint's request fits.
 */
export function toRequestAttributes(
  path: string,
  request: Readonly<Record<string, unknown>>,
): SpanAttributes {
  return {
    'gen_ai.operation.name': toGenAiOperation(path),
    'gen_ai.request.model': typeof request['model'] === 'string' ? request['model'] : undefined,
    'gen_ai.request.max_tokens':
      numberOr(request['max_tokens']) ??
      numberOr(request['max_completion_tokens']) ??
      numberOr(request['max_output_tokens']),
    'gen_ai.request.temperature': numberOr(request['temperature']),
    'gen_ai.request.top_p': numberOr(request['top_p']),
    'gen_ai.request.choice.count': numberOr(request['n']),
    'gen_ai.request.stream': request['stream'] === true,
  };
}

/** What routing decided and how the request ended: `gen_ai.response.*`, `gen_ai.usage.*`, `autotier.*`. */
export function toOutcomeAttributes(input: {
  summary: RequestSummary;
  result: ExecuteResult | undefined;
  usage: Usage | undefined;
}): SpanAttributes {
  const { summary, result, usage } = input;
  return {
    'gen_ai.response.model':
      result === undefined ? undefined : (result.head[0]?.chunk.model ?? result.deployment.model),
    'gen_ai.usage.input_tokens': usage?.prompt_tokens,
    'gen_ai.usage.output_tokens': usage?.completion_tokens ?? summary.completionTokens,
    'autotier.tokens': summary.tokenStatus,
    'autotier.outcome': summary.outcome,
    'autotier.tier': summary.tier,
    'autotier.complexity': summary.complexity,
    'autotier.cause': summary.cause,
    'autotier.confidence': summary.confidence,
    'autotier.rules': summary.rules.length === 0 ? undefined : summary.rules,
    'autotier.deployment': summary.deployment,
    'autotier.attempts': summary.attempts,
    'autotier.fallback': summary.fallbacks > 0,
    'autotier.fallbacks': summary.fallbacks,
    'autotier.continuations': result?.continuations.length,
    'autotier.key_name': summary.keyName,
    'autotier.prompt_tokens': summary.promptTokens,
    'autotier.ttft_ms': summary.ttftMs === undefined ? undefined : Math.round(summary.ttftMs),
  };
}
