import type { RouterError } from '../shared/errors.js';
import { hasContent, type Usage } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';

/** What a client has been sent of one answer so far: enough to continue it elsewhere. */
export interface DeliveredAnswer {
  /** `delta.content` of choice 0, concatenated. */
  content: string;
  /** Reasoning (`reasoning_content` / `reasoning`) was streamed. */
  reasoning: boolean;
  /** A tool-call delta was streamed. */
  toolCall: boolean;
  /** A choice other than index 0 was streamed (n > 1). */
  severalChoices: boolean;
  /** A finish_reason arrived: the answer is whole, whatever broke after it. */
  finished: boolean;
  /** Events that carried content: one token each as vLLM streams, the estimate when no usage came. */
  contentEvents: number;
  /** The last usage the upstream reported, if any. */
  usage: Usage | undefined;
  /** `id`, `created` and `model` of the first chunk: later legs are relabelled with them. */
  identity: { id?: string | undefined; created?: number | undefined; model?: string | undefined };
}

export function toDeliveredAnswer(): DeliveredAnswer {
  return {
    content: '',
    reasoning: false,
    toolCall: false,
    severalChoices: false,
    finished: false,
    contentEvents: 0,
    usage: undefined,
    identity: {},
  };
}

/** Folds a batch the client is about to be sent into `delivered` (in place: it runs per batch). */
export function noteDelivered(delivered: DeliveredAnswer, batch: readonly UpstreamEvent[]): void {
  for (const { chunk } of batch) {
    if (delivered.identity.id === undefined && typeof chunk.id === 'string')
      delivered.identity = { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage !== undefined && chunk.usage !== null) delivered.usage = chunk.usage;
    if (hasContent(chunk)) delivered.contentEvents += 1;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) delivered.severalChoices = true;
      if (typeof choice.finish_reason === 'string') delivered.finished = true;
      if (typeof choice.text === 'string' && choice.text !== '') delivered.content += choice.text;
      const delta = choice.delta;
      if (delta === undefined) continue;
      if (typeof delta.content === 'string') delivered.content += delta.content;
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
        delivered.reasoning = true;
      if (typeof delta.reasoning === 'string' && delta.reasoning !== '') delivered.reasoning = true;
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) delivered.toolCall = true;
    }
  }
}

/** Failures after the first token that another deployment can take over from. */
const CONTINUABLE_CODES: ReadonlySet<string> = new Set([
  'UPSTREAM_STREAM_CUT',
  'UPSTREAM_IDLE_TIMEOUT',
  'UPSTREAM_MALFORMED',
  'UPSTREAM_SERVER_ERROR',
]);

/** True for the failures of an upstream stream itself, the ones a continuation can take over from. */
export function isStreamBreak(error: RouterError): boolean {
  return CONTINUABLE_CODES.has(error.code);
}

/** The assistant text to continue from, or why the answer cannot soundly be continued. */
export type ContinuationPlan =
  { kind: 'continue'; prefix: string; completionTokens: number } | { kind: 'unsound'; reason: string };

/**
 * Whether a broken answer can be continued on another deployment, and from what text.
 * - Only a break of the stream itself (cut, idle, malformed, upstream in-band error): a deadline or a
 *   client that left is not a deployment's fault, and no time is left anyway.
 * - Only the answer text of a single choice: a break inside reasoning (before any answer text) or
 *   inside a tool call cannot be prefilled soundly (chat templates rebuild the reasoning block, and a
 *   half-written tool call is not a message), so those end as before, with the in-band error.
 * - Inline reasoning (`<think>...</think>` in content, no reasoning parser) is dropped from the prefix:
 *   the continuation continues the answer after it.
 */
export function planContinuation(delivered: DeliveredAnswer, error: RouterError): ContinuationPlan {
  if (!CONTINUABLE_CODES.has(error.code))
    return { kind: 'unsound', reason: `not a stream break (${error.code})` };
  if (delivered.finished) return { kind: 'unsound', reason: 'the answer had finished' };
  if (delivered.severalChoices) return { kind: 'unsound', reason: 'several choices' };
  if (delivered.toolCall) return { kind: 'unsound', reason: 'inside a tool call' };
  const prefix = toAnswerText(delivered.content);
  if (prefix === undefined || prefix.trim() === '') return { kind: 'unsound', reason: 'inside reasoning' };
  const completionTokens = delivered.usage?.completion_tokens ?? delivered.contentEvents;
  return { kind: 'continue', prefix, completionTokens };
}

/** The answer part of content: after an inline `</think>`; undefined while still inside `<think>`. */
function toAnswerText(content: string): string | undefined {
  const open = content.indexOf('<think>');
  if (open < 0 || content.slice(0, open).trim() !== '') return content;
  const close = content.indexOf('</think>', open);
  if (close < 0) return undefined;
  return content.slice(close + '</think>'.length).replace(/^\s+/, '');
}
