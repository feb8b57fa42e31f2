import { hasContent, type ChatChunk, type Usage } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { DeliveredAnswer } from './delivered-answer.js';

/** One switch of a broken answer to another deployment, as the final chunk and the logs show it. */
export interface ContinuationRecord {
  /** The deployment whose stream broke. */
  from: string;
  /** The deployment that continued the answer. */
  to: string;
  /** Served model name of `to`. */
  model: string;
  /** The error code of the break, lower case as in error bodies (e.g. `upstream_stream_cut`). */
  reason: string;
  /** Completion tokens delivered before the break (reported, or one per content event). */
  delivered_tokens: number;
}

export interface RelabelInput {
  /** What the client has been sent before this leg (identity, usage so far). */
  delivered: DeliveredAnswer;
  /** Usage of the legs before this one, already summed. */
  earlierUsage: Usage;
  /** Every switch so far, this one included; shown on the finishing chunk and the usage chunk. */
  records: readonly ContinuationRecord[];
}

/**
 * A continuation leg's events as part of the first leg's answer: the first leg's id, created and
 * model; no second `role` delta; the usage summed over the legs; and `autotier.continuations` on the
 * chunk that finishes the answer and on the usage chunk. Only continuation legs pay for this
 * re-serialization; a normal stream is relayed byte for byte.
 */
export function relabelContinuation(batch: readonly UpstreamEvent[], input: RelabelInput): UpstreamEvent[] {
  const relabelled: UpstreamEvent[] = [];
  for (const event of batch) {
    const chunk = relabelChunk(event.chunk, input);
    if (chunk !== undefined)
      relabelled.push({ data: JSON.stringify(chunk), chunk, firstContent: event.firstContent });
  }
  return relabelled;
}

function relabelChunk(source: ChatChunk, input: RelabelInput): ChatChunk | undefined {
  const { identity } = input.delivered;
  const chunk: ChatChunk = Object.assign({}, source);
  if (identity.id !== undefined) chunk.id = identity.id;
  if (identity.created !== undefined) chunk.created = identity.created;
  if (identity.model !== undefined) chunk.model = identity.model;
  let finishing = false;
  if (Array.isArray(source.choices))
    chunk.choices = source.choices.map((choice) => {
      if (typeof choice.finish_reason === 'string') finishing = true;
      if (choice.delta === undefined || !('role' in choice.delta)) return choice;
      const delta = Object.assign({}, choice.delta);
      delete delta.role;
      return Object.assign({}, choice, { delta });
    });
  const usage = source.usage ?? undefined;
  if (usage !== undefined) chunk.usage = addUsage(input.earlierUsage, usage);
  const carriesNothing = !hasContent(chunk) && !finishing && usage === undefined && !hasLogprobs(chunk);
  if (carriesNothing) return undefined;
  if (finishing || usage !== undefined) chunk['autotier'] = { continuations: input.records };
  return chunk;
}

function hasLogprobs(chunk: ChatChunk): boolean {
  return (chunk.choices ?? []).some((choice) => choice.logprobs !== undefined && choice.logprobs !== null);
}

/** The sum of two usage objects' token counts (other fields of `later` kept). */
export function addUsage(earlier: Usage, later: Usage): Usage {
  const prompt = earlier.prompt_tokens + later.prompt_tokens;
  const completion = earlier.completion_tokens + later.completion_tokens;
  return Object.assign({}, later, {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  });
}
