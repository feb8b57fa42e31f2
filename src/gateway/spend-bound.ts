import type { RouteDecision } from '../routing/decide-route.js';

/** The most one request can spend, in tokens, as admission reserves it. */
export interface SpendBound {
  promptTokens: number;
  completionTokens: number;
}

/**
 * The most a request can spend: its prompt tokens, plus the effective max_tokens (the client's under
 * the tier's cap, else the tier's default; autotier always sends it upstream, so no sequence runs past
 * it) for every sequence the servers generate (`sequences`: n, or best_of when larger, for each prompt
 * of a legacy completion's array). A prompt with parts no count sees (video, audio, files) is charged
 * at the widest window of the plan's deployments less max_tokens, the most a server accepts.
 */
export function toSpendBound(decision: RouteDecision, sequences: number): SpendBound {
  const completionTokens = decision.maxTokens * Math.max(0, sequences);
  if ((decision.uncountedParts ?? 0) === 0) return { promptTokens: decision.promptTokens, completionTokens };
  let window = 0;
  for (const deployment of [...decision.plan.group, ...decision.plan.fallback])
    window = Math.max(window, deployment.context_window);
  return {
    promptTokens: Math.max(decision.promptTokens, window - decision.maxTokens),
    completionTokens,
  };
}

/**
 * The prompt tokens charged for an answer that ended without usage (a client that closed its stream,
 * a stream cut before its usage chunk): the count, or for a prompt with parts no count sees, its
 * bound. The server did read those parts, so closing a stream early must not make a video free.
 */
export function toUnreportedPromptTokens(decision: RouteDecision): number {
  return toSpendBound(decision, 0).promptTokens;
}

/**
 * Sequences a legacy completion makes the server generate, each up to max_tokens: `n` answers (or
 * `best_of`, when larger: the server generates that many and returns the best n) for every prompt.
 */
export function toCompletionSequences(request: {
  prompt: string | readonly string[];
  n?: number | null | undefined;
  best_of?: number | null | undefined;
}): number {
  const prompts = typeof request.prompt === 'string' ? 1 : request.prompt.length;
  return prompts * Math.max(request.n ?? 1, request.best_of ?? 1);
}

/**
 * A count field the client sent unchecked (`n` in a Responses body, passed on to chat servers) as a
 * server may read it: a positive number, or a numeric string (pydantic's lax mode reads "16" as 16);
 * 1 otherwise.
 */
export function toClientCount(value: unknown): number {
  const count = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof count === 'number' && Number.isFinite(count) && count >= 1 ? Math.ceil(count) : 1;
}
