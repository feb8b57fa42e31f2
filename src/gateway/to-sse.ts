import type { ExecuteResult } from '../balance/balancer.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError, toOpenAIErrorBody, toRouterError, type OpenAIErrorBody } from '../shared/errors.js';
import type { ChatChunk, Usage } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { AnswerUsage } from './exchange.js';

export interface SseOptions {
  result: ExecuteResult;
  /** The client asked for stream_options.include_usage; otherwise the usage-only chunk is dropped (chat framing). */
  includeUsage: boolean;
  requestId: string;
  /** Told once at the end, with what is known of the tokens. */
  onEnd: (end: AnswerUsage & { error: unknown }) => void;
  /** Collect the generated text for the log (content logging on). */
  collectText: boolean;
  /** An in-band error shows internal detail (admin key or open mode; see toOpenAIErrorBody). */
  revealInternal: boolean;
  /** How events become SSE frames. @default chat completion chunks, then `[DONE]` */
  framer?: SseFramer;
  /**
   * The request's signal: a stream its writer stopped early ends with the signal's reason (a client cut
   * for not reading, a drain), else CLIENT_CLOSED. @default none
   */
  signal?: CancelSignal;
}

/** How the client's stream is written: one upstream event, the clean end, and a failure after the commit. */
export interface SseFramer {
  frame(event: UpstreamEvent): string;
  end(): string;
  fail(error: OpenAIErrorBody): string;
}

/** Chat and legacy completions: each chunk as `data:`, then `[DONE]`; an error as a `data:` error body. */
function toChatFramer(includeUsage: boolean): SseFramer {
  return {
    frame: (event) => (includeUsage || !isUsageOnly(event) ? `data: ${event.data}\n\n` : ''),
    end: () => 'data: [DONE]\n\n',
    fail: (body) => `data: ${JSON.stringify(body)}\n\n`,
  };
}

function isUsageOnly(event: UpstreamEvent): boolean {
  return (
    (event.chunk.choices?.length ?? 0) === 0 && event.chunk.usage !== undefined && event.chunk.usage !== null
  );
}

/** Why a stream stopped before its end: the request's stop reason, else its client closed it. */
function toStopReason(signal: CancelSignal | undefined): RouterError {
  const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
  return reason instanceof RouterError
    ? reason
    : new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the stream' });
}

/** Characters of generated text in a chunk (content, reasoning, tool-call arguments, legacy text). */
export function toGeneratedChars(chunk: ChatChunk): number {
  let characters = 0;
  for (const choice of chunk.choices ?? []) {
    characters += choice.text?.length ?? 0;
    const delta = choice.delta;
    if (delta === undefined) continue;
    characters +=
      (delta.content?.length ?? 0) + (delta.reasoning_content?.length ?? 0) + (delta.reasoning?.length ?? 0);
    for (const call of delta.tool_calls ?? []) characters += call.function?.arguments?.length ?? 0;
  }
  return characters;
}

/**
 * The client's SSE stream: the events buffered before the commit point, then the live ones, then
 * `[DONE]`. A failure after the commit ends the stream with an in-band error event and no `[DONE]`,
 * so the client can never mistake a truncated answer for a complete one.
 */
export async function* toSse(options: SseOptions): AsyncGenerator<string> {
  const { result } = options;
  const framer = options.framer ?? toChatFramer(options.includeUsage);
  let usage: Usage | undefined;
  let generatedChars = 0;
  let completionText = '';
  let ended = false;
  const frame = (event: UpstreamEvent): string => {
    if (event.chunk.usage !== undefined && event.chunk.usage !== null) usage = event.chunk.usage;
    generatedChars += toGeneratedChars(event.chunk);
    if (options.collectText)
      for (const choice of event.chunk.choices ?? [])
        completionText += choice.delta?.content ?? choice.text ?? '';
    return framer.frame(event);
  };
  try {
    yield result.head.map(frame).join('');
    // one write per arrival batch: a burst of chunks becomes one socket write, not one each
    for await (const batch of result.rest) {
      const text = batch.map(frame).join('');
      if (text !== '') yield text;
    }
    ended = true;
    options.onEnd({ usage, generatedChars, completionText, error: undefined });
    const end = framer.end();
    if (end !== '') yield end;
  } catch (error) {
    ended = true;
    options.onEnd({ usage, generatedChars, completionText, error });
    yield framer.fail(
      toOpenAIErrorBody(toRouterError(error), {
        requestId: options.requestId,
        revealInternal: options.revealInternal,
      }),
    );
  } finally {
    if (!ended) {
      result.cancel();
      options.onEnd({
        usage,
        generatedChars,
        completionText,
        error: toStopReason(options.signal),
      });
    }
  }
}
