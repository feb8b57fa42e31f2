import type { ExecuteResult } from '../balance/create-balancer.js';
import { toOpenAIErrorBody, toRouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';

export interface SseOptions {
  result: ExecuteResult;
  /** The client asked for stream_options.include_usage; otherwise the usage-only chunk is dropped. */
  includeUsage: boolean;
  requestId: string;
  /** Told once at the end: undefined on success, the error after a post-commit failure. */
  onEnd: (error: unknown) => void;
}

function isUsageOnly(event: UpstreamEvent): boolean {
  return (
    (event.chunk.choices?.length ?? 0) === 0 && event.chunk.usage !== undefined && event.chunk.usage !== null
  );
}

function toFrame(event: UpstreamEvent, includeUsage: boolean): string {
  return includeUsage || !isUsageOnly(event) ? `data: ${event.data}\n\n` : '';
}

/**
 * The client's SSE stream: the events buffered before the commit point, then the live ones, then
 * `[DONE]`. A failure after the commit ends the stream with an in-band error event and no `[DONE]`,
 * so the client can never mistake a truncated answer for a complete one.
 */
export async function* toSse(options: SseOptions): AsyncGenerator<string> {
  const { result, includeUsage } = options;
  let ended = false;
  try {
    yield result.head.map((event) => toFrame(event, includeUsage)).join('');
    for await (const event of result.rest) {
      const frame = toFrame(event, includeUsage);
      if (frame !== '') yield frame;
    }
    ended = true;
    options.onEnd(undefined);
    yield 'data: [DONE]\n\n';
  } catch (error) {
    ended = true;
    options.onEnd(error);
    yield `data: ${JSON.stringify(toOpenAIErrorBody(toRouterError(error), options.requestId))}\n\n`;
  } finally {
    if (!ended) {
      result.cancel();
      options.onEnd(undefined);
    }
  }
}
