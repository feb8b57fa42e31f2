import type { ServerResponse } from 'node:http';
import type { Sleep } from '../src/shared/clock.js';
import type { StreamScript } from './stream-script.js';

/** vLLM answers streams through starlette's StreamingResponse with this media type. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' } as const;
/** Shortest timer scheduled between tokens, in milliseconds; faster rates write several tokens per timer. */
const MIN_TIMER_MS = 4;
/**
 * Largest single write, characters (64 Ki): a longer text goes out in slices, each after the socket
 * drained, so a reader that stops reading stops the writer (uvicorn pauses its writes the same way).
 */
const WRITE_SLICE_CHARS = 64 * 1024;

export interface StreamTiming {
  /** Wait between the role chunk and the first content event, in milliseconds. */
  firstTokenDelayMs: number;
  /** Wait between content events, in milliseconds; 0 writes all of them at once. */
  tokenIntervalMs: number;
}

export interface StreamRun {
  response: ServerResponse;
  script: StreamScript;
  timing: StreamTiming;
  sleep: Sleep;
  /** Aborts when the response closes (client gone or server closing); pending waits then reject. */
  signal: AbortSignal;
  /** Told the bytes of each write. @default nothing */
  onWritten?: (bytes: number) => void;
}

/** Writes a stream script; with zero latency everything goes out at once (in drained slices when long). */
export async function runStream(run: StreamRun): Promise<void> {
  const { response, script, timing } = run;
  response.writeHead(200, SSE_HEADERS);
  try {
    if (timing.firstTokenDelayMs <= 0 && timing.tokenIntervalMs <= 0) {
      const pieces = [script.head, ...script.content];
      if (toLength(pieces) + script.trailer.length <= WRITE_SLICE_CHARS)
        return finishCounted(run, pieces.join('') + script.trailer);
      await writeDrained(run, pieces);
      return finishCounted(run, script.trailer);
    }
    if (script.head === '') response.flushHeaders();
    else write(run, script.head);
    if (timing.firstTokenDelayMs > 0) await run.sleep(timing.firstTokenDelayMs, run.signal);
    await writePaced(run);
  } catch {
    return; // the wait was aborted: the client went away or the server is closing
  }
  finishCounted(run, script.trailer);
}

function finishCounted(run: StreamRun, text: string): void {
  if (!run.response.destroyed) run.onWritten?.(Buffer.byteLength(text));
  finish(run.response, text, run.script.ending);
}

function write(run: StreamRun, text: string): boolean {
  run.onWritten?.(Buffer.byteLength(text));
  return run.response.write(text);
}

const toLength = (pieces: readonly string[]): number => pieces.reduce((sum, piece) => sum + piece.length, 0);

/**
 * Writes `pieces` in writes of about WRITE_SLICE_CHARS (pieces joined, a longer one sliced), each once
 * the socket drained; rejects when the response closes first.
 */
async function writeDrained(run: StreamRun, pieces: readonly string[]): Promise<void> {
  let batch: string[] = [];
  let batchLength = 0;
  const flush = async (text: string): Promise<void> => {
    for (let start = 0; start < text.length; start += WRITE_SLICE_CHARS) {
      if (run.response.destroyed || run.signal.aborted) throw new Error('response closed');
      if (!write(run, text.slice(start, start + WRITE_SLICE_CHARS))) await drained(run);
    }
  };
  for (const piece of pieces) {
    batch.push(piece);
    batchLength += piece.length;
    if (batchLength < WRITE_SLICE_CHARS) continue;
    const text = batch.join('');
    batch = [];
    batchLength = 0;
    await flush(text);
  }
  await flush(batch.join(''));
}

/** Resolves on 'drain'; rejects when the response closes first. */
function drained(run: StreamRun): Promise<void> {
  const { response, signal } = run;
  return new Promise<void>((resolve, reject) => {
    const done = (): void => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(new Error('response closed'));
      else resolve();
    };
    response.on('drain', done);
    signal.addEventListener('abort', done);
  });
}

async function writePaced(run: StreamRun): Promise<void> {
  const { content } = run.script;
  const interval = run.timing.tokenIntervalMs;
  if (interval <= 0) {
    await writeDrained(run, content);
    return;
  }
  const batch = Math.max(1, Math.ceil(MIN_TIMER_MS / interval));
  for (let start = 0; start < content.length; start += batch) {
    if (start > 0) await run.sleep(interval * batch, run.signal);
    if (run.response.destroyed) return;
    write(run, content.slice(start, start + batch).join(''));
  }
}

/** Ends cleanly, destroys the socket once `text` is flushed, or leaves the response hanging. */
export function finish(response: ServerResponse, text: string, ending: StreamScript['ending']): void {
  if (response.destroyed) return;
  switch (ending) {
    case 'end':
      response.end(text);
      return;
    case 'destroy':
      destroyAfterFlush(response, text);
      return;
    case 'stall':
      if (text !== '') response.write(text);
      return;
  }
}

/** Destroys the socket once `text` (or at least the headers) has been handed to the kernel. */
function destroyAfterFlush(response: ServerResponse, text: string): void {
  if (text !== '') {
    response.write(text, () => response.destroy());
    return;
  }
  response.flushHeaders();
  setImmediate(() => response.destroy());
}
