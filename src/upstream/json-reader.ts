import { RouterError } from '../shared/errors.js';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import type { ChatChunk, Usage } from './chat-chunk.js';
import type { EventReader, ReadResult } from './event-reader.js';

/**
 * Longest JSON answer read, in bytes (64 MiB): 2,048 inputs of 1,024 dimensions are about 11 MiB in
 * base64 and 40 MiB as JSON numbers; a server that never ends its body cannot take the router's memory.
 */
export const MAX_JSON_ANSWER_BYTES = 64 * 1024 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const toCount = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;

/**
 * The answer's usage with every count a number (an embeddings answer has no completion tokens);
 * null when the answer reported none, so the key is charged autotier's count rather than 0.
 */
function toUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const usage = value;
  const prompt = toCount(usage['prompt_tokens']);
  const completion = toCount(usage['completion_tokens']);
  const total =
    typeof usage['total_tokens'] === 'number' ? toCount(usage['total_tokens']) : prompt + completion;
  return Object.assign({}, usage, {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
  });
}

/**
 * Reads a non-streamed JSON answer (POST /embeddings) as one event at the end of the body: the parsed
 * object as the chunk (its usage normalized, `data` left empty), counted as content. The body is kept
 * as buffers until it ends, at most MAX_JSON_ANSWER_BYTES.
 */
export function createJsonReader(options: {
  watchdog: AttemptWatchdog;
  deploymentId: string;
  /** Largest body, bytes. @default MAX_JSON_ANSWER_BYTES */
  maxBytes?: number;
}): EventReader {
  const maxBytes = options.maxBytes ?? MAX_JSON_ANSWER_BYTES;
  const parts: Buffer[] = [];
  let bytes = 0;
  let outcome: RouterError | 'done' | undefined;
  const malformed = (message: string, cause?: unknown): RouterError =>
    new RouterError({
      code: 'UPSTREAM_MALFORMED',
      message: `${options.deploymentId}: ${message}`,
      retryable: true,
      cause,
    });
  return {
    push(chunk) {
      if (outcome !== undefined) return { events: [] };
      bytes += chunk.length;
      if (bytes > maxBytes) {
        outcome = malformed(`an answer longer than ${maxBytes} bytes`);
        return { events: [], error: outcome };
      }
      parts.push(chunk);
      return { events: [] };
    },
    end(): ReadResult {
      if (outcome !== undefined) return { events: [] };
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(parts, bytes).toString('utf8'));
      } catch (cause) {
        outcome = malformed('malformed JSON answer', cause);
        return { events: [], error: outcome };
      } finally {
        parts.length = 0;
      }
      if (!isObject(parsed)) {
        outcome = malformed('the answer is not a JSON object');
        return { events: [], error: outcome };
      }
      outcome = 'done';
      options.watchdog.onChunk(true);
      const chunk: ChatChunk = Object.assign(parsed, { usage: toUsage(parsed['usage']) ?? null });
      return { events: [{ data: '', chunk, firstContent: true }] };
    },
    done: () => outcome === 'done',
    finish() {
      if (outcome === 'done') return undefined;
      return outcome ?? malformed('the answer ended before it was read');
    },
  };
}
