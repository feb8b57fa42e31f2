import { RouterError } from '../shared/errors.js';
import { hasContent, isChatChunk, toFinishedIndexes, type ChatChunk } from './chat-chunk.js';
import { createSseParser } from './sse-parser.js';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import type { UpstreamEvent } from './upstream.js';

export interface ReadEventsOptions {
  body: AsyncIterable<Uint8Array>;
  watchdog: AttemptWatchdog;
  deploymentId: string;
  /** Aborted by the client or a timer; its reason is rethrown when the body read fails. */
  signal: AbortSignal;
}

function parseChunk(data: string, deploymentId: string): ChatChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (cause) {
    throw new RouterError({
      code: 'UPSTREAM_MALFORMED',
      message: `${deploymentId}: malformed stream chunk`,
      retryable: true,
      cause,
    });
  }
  if (!isChatChunk(parsed)) {
    throw new RouterError({
      code: 'UPSTREAM_MALFORMED',
      message: `${deploymentId}: stream chunk is not an object`,
      retryable: true,
    });
  }
  if (parsed.error !== undefined && parsed.error !== null) {
    throw new RouterError({
      code: 'UPSTREAM_SERVER_ERROR',
      message: `${deploymentId}: in-stream error ${JSON.stringify(parsed.error).slice(0, 300)}`,
      retryable: true,
    });
  }
  return parsed;
}

function toReadError(error: unknown, options: ReadEventsOptions): RouterError {
  const fired = options.watchdog.reason();
  if (fired !== undefined) return fired;
  if (error instanceof RouterError) return error;
  if (options.signal.aborted) {
    const reason: unknown = options.signal.reason;
    if (reason instanceof RouterError) return reason;
    return new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection', cause: error });
  }
  return new RouterError({
    code: 'UPSTREAM_STREAM_CUT',
    message: `${options.deploymentId}: stream broken (${(error as Error).message})`,
    retryable: true,
    cause: error,
  });
}

/**
 * The events of an SSE body, parsed and checked, in batches of one network read. Ends normally at `[DONE]`, or at the end of the
 * body when every choice already had a finish_reason; otherwise the stream was cut and this throws.
 */
export async function* readEvents(options: ReadEventsOptions): AsyncGenerator<UpstreamEvent[]> {
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const seen = new Set<number>();
  const finished = new Set<number>();
  let contentSeen = false;
  try {
    for await (const bytes of options.body) {
      const batch: UpstreamEvent[] = [];
      for (const data of parser.push(decoder.decode(bytes, { stream: true }))) {
        if (data === '[DONE]') {
          if (batch.length > 0) yield batch;
          return;
        }
        let chunk: ChatChunk;
        try {
          chunk = parseChunk(data, options.deploymentId);
        } catch (error) {
          // hand over the good events first, so a bad chunk fails the stream where it stands
          if (batch.length > 0) yield batch;
          throw error;
        }
        const content = hasContent(chunk);
        options.watchdog.onChunk(content);
        for (const choice of chunk.choices ?? []) seen.add(choice.index ?? 0);
        for (const index of toFinishedIndexes(chunk)) finished.add(index);
        batch.push({ data, chunk, firstContent: content && !contentSeen });
        contentSeen ||= content;
      }
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    throw toReadError(error, options);
  }
  const fired = options.watchdog.reason();
  if (fired !== undefined) throw fired;
  const complete = finished.size > 0 && [...seen].every((index) => finished.has(index));
  if (!complete) {
    throw new RouterError({
      code: 'UPSTREAM_STREAM_CUT',
      message: `${options.deploymentId}: stream ended before finish_reason and [DONE]`,
      retryable: true,
    });
  }
}
