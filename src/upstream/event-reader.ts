import { StringDecoder } from 'node:string_decoder';
import { RouterError } from '../shared/errors.js';
import { redactSecrets } from '../shared/redact.js';
import { hasContent, isChatChunk, toFinishedIndexes, type ChatChunk } from './chat-chunk.js';
import { toChunkFromResponseEvent, type StreamProtocol } from './response-event-chunk.js';
import { createSseParser } from './sse-parser.js';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import type { UpstreamEvent } from './upstream.js';

/** What one network read of an SSE body gave: its events, and the error that ended it, if any. */
export interface ReadResult {
  events: UpstreamEvent[];
  /** A malformed chunk or an in-stream error: the events before it are still good. */
  error?: RouterError;
}

/**
 * Turns the bytes of an upstream SSE body into checked events as they arrive (push, not pull:
 * the HTTP client calls it from its data callback). Ends normally at `[DONE]`, or at the end of the
 * body when every choice already had a finish_reason; otherwise `finish()` reports a cut stream.
 */
export interface EventReader {
  push(bytes: Buffer): ReadResult;
  /** True once `[DONE]` was read; later bytes are ignored. */
  done(): boolean;
  /**
   * Call at the end of the body, before `finish`, when present: the events only a whole body completes
   * (a JSON answer, upstream/json-reader.ts).
   */
  end?(): ReadResult;
  /** Call at the end of the body: the error of a stream that ended too early, or undefined. */
  finish(): RouterError | undefined;
}

interface ChunkSource {
  deploymentId: string;
  secrets: readonly string[];
  protocol: StreamProtocol;
}

/** A Responses event (an object with a string `type`) read as a chat chunk; otherwise undefined. */
function toResponseEventChunk(parsed: unknown): ChatChunk | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const event = parsed as Record<string, unknown>;
  return typeof event['type'] === 'string' ? toChunkFromResponseEvent(event) : undefined;
}

function parseChunk(data: string, source: ChunkSource): ChatChunk {
  const { deploymentId } = source;
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
  const chunk = source.protocol === 'responses' ? toResponseEventChunk(parsed) : parsed;
  if (chunk === undefined || !isChatChunk(chunk)) {
    throw new RouterError({
      code: 'UPSTREAM_MALFORMED',
      message:
        source.protocol === 'responses'
          ? `${deploymentId}: stream event is not a Responses event (an object with a string type)`
          : `${deploymentId}: stream chunk is not a chat chunk (an object, with a list of choice objects)`,
      retryable: true,
    });
  }
  if (chunk.error !== undefined && chunk.error !== null) {
    throw new RouterError({
      code: 'UPSTREAM_SERVER_ERROR',
      message: `${deploymentId}: in-stream error ${redactSecrets(describeInStreamError(chunk.error), source.secrets)}`,
      retryable: true,
    });
  }
  return chunk;
}

/** The first 300 characters of an in-stream error as JSON; nesting too deep to print is not thrown. */
/**
 * Longest stream event kept while it arrives, characters (8 Mi): a chunk of a real answer is a few
 * hundred; a server that never ends its event cannot take the router's memory.
 */
const MAX_EVENT_CHARACTERS = 8 * 1024 * 1024;

function describeInStreamError(error: unknown): string {
  try {
    return JSON.stringify(error).slice(0, 300);
  } catch {
    return '(nested too deeply to show)';
  }
}

export function createEventReader(options: {
  watchdog: AttemptWatchdog;
  deploymentId: string;
  /** Secret values masked in an in-stream error's text. @default [] */
  secrets?: readonly string[];
  /** What the events are: chat chunks, or typed Responses events. @default 'chat' */
  protocol?: StreamProtocol;
}): EventReader {
  const source: ChunkSource = {
    deploymentId: options.deploymentId,
    secrets: options.secrets ?? [],
    protocol: options.protocol ?? 'chat',
  };
  const parser = createSseParser();
  const decoder = new StringDecoder('utf8');
  /** Choice indexes seen, and those that carried a finish_reason. */
  const seen = new Set<number>();
  const finished = new Set<number>();
  let contentSeen = false;
  let done = false;
  const toEvent = (data: string): UpstreamEvent => {
    const chunk = parseChunk(data, source);
    const content = hasContent(chunk);
    options.watchdog.onChunk(content);
    for (const choice of chunk.choices ?? []) seen.add(choice.index ?? 0);
    for (const index of toFinishedIndexes(chunk)) finished.add(index);
    const event = { data, chunk, firstContent: content && !contentSeen };
    contentSeen ||= content;
    return event;
  };
  return {
    push(bytes) {
      const events: UpstreamEvent[] = [];
      if (done) return { events };
      const completed = parser.push(decoder.write(bytes));
      if (parser.pendingLength() > MAX_EVENT_CHARACTERS)
        return {
          events,
          error: new RouterError({
            code: 'UPSTREAM_MALFORMED',
            message: `${options.deploymentId}: a stream event longer than ${MAX_EVENT_CHARACTERS} characters`,
            retryable: true,
          }),
        };
      for (const data of completed) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        try {
          events.push(toEvent(data));
        } catch (error) {
          return { events, error: error as RouterError };
        }
      }
      return { events };
    },
    done: () => done,
    finish() {
      if (done) return undefined;
      const complete = finished.size > 0 && [...seen].every((index) => finished.has(index));
      if (complete) return undefined;
      return new RouterError({
        code: 'UPSTREAM_STREAM_CUT',
        message: `${options.deploymentId}: stream ended before finish_reason and [DONE]`,
        retryable: true,
      });
    },
  };
}
