import type { UpstreamEvent } from '../upstream/upstream.js';

/** Completion tokens reported by the last usage chunk among `events`, 0 when none. */
export function toCompletionTokens(events: readonly UpstreamEvent[]): number {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const usage = events[index]?.chunk.usage;
    if (usage !== undefined && usage !== null) return usage.completion_tokens;
  }
  return 0;
}
