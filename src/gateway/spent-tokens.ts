import type { SpentTokens } from '../policy/api-keys.js';
import type { Usage } from '../upstream/chat-chunk.js';

/** Rough size of a generated token in characters, for the estimate when no usage came. */
const CHARS_PER_TOKEN = 4;

/** A count an upstream reported: a finite number at or above 0, else undefined (not reported). */
export function toReportedCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.ceil(value) : undefined;
}

/**
 * What a request spent, as its key is charged: the upstream's reported usage where it gave one (a
 * multimodal server counts the video frames and audio that autotier cannot), else autotier's prompt
 * count and an estimate of the completion from the generated characters.
 */
export function toSpentTokens(
  end: { usage: Usage | undefined; generatedChars: number },
  promptEstimate: number,
): SpentTokens {
  return {
    promptTokens: toReportedCount(end.usage?.prompt_tokens) ?? promptEstimate,
    completionTokens:
      toReportedCount(end.usage?.completion_tokens) ?? Math.ceil(end.generatedChars / CHARS_PER_TOKEN),
  };
}
