/**
 * A streamed reply, already serialized as SSE events (`data: <json>\n\n`). The stream runner writes
 * `head` at once, waits the time to first token, paces `content`, then writes `tail` and `[DONE]`.
 */
export interface StreamFrames {
  /** Role chunks: sent before the time-to-first-token wait, as vLLM does. */
  head: string[];
  /** One event per simulated token (content, reasoning or tool-call fragment). */
  content: string[];
  /** Finish chunks and the optional usage chunk. */
  tail: string[];
  /** An event with an empty content delta, for the `empty_chunks` fault. */
  empty: string;
  /** What ends a clean stream. @default DONE_EVENT (a Responses stream has none) */
  done?: string;
}

export const DONE_EVENT = 'data: [DONE]\n\n';

export function toEvent(json: string): string {
  return `data: ${json}\n\n`;
}

/** Round-robin merge of per-choice event lists, as vLLM interleaves choices of an n>1 stream. */
export function interleave(lists: readonly string[][]): string[] {
  if (lists.length === 1) return lists[0] ?? [];
  const merged: string[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let step = 0; step < longest; step += 1) {
    for (const list of lists) {
      const event = list[step];
      if (event !== undefined) merged.push(event);
    }
  }
  return merged;
}

/** vLLM's UsageInfo field order: prompt, total, completion. */
export function toUsageJson(promptTokens: number, completionTokens: number): string {
  const total = promptTokens + completionTokens;
  return `{"prompt_tokens":${promptTokens},"total_tokens":${total},"completion_tokens":${completionTokens}}`;
}
