import type { ServerResponse } from 'node:http';
import type { Sleep } from '../shared/clock.js';
import type { StreamScript } from './stream-script.js';

/** vLLM answers streams through starlette's StreamingResponse with this media type. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' } as const;
/** Shortest timer scheduled between tokens, in milliseconds; faster rates write several tokens per timer. */
const MIN_TIMER_MS = 4;

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
}

/** Writes a stream script; with zero latency everything goes out in a single write. */
export async function runStream(run: StreamRun): Promise<void> {
  const { response, script, timing } = run;
  response.writeHead(200, SSE_HEADERS);
  if (timing.firstTokenDelayMs <= 0 && timing.tokenIntervalMs <= 0) {
    finish(response, script.head + script.content.join('') + script.trailer, script.ending);
    return;
  }
  if (script.head === '') response.flushHeaders();
  else response.write(script.head);
  try {
    if (timing.firstTokenDelayMs > 0) await run.sleep(timing.firstTokenDelayMs, run.signal);
    await writePaced(run);
  } catch {
    return; // the wait was aborted: the client went away or the server is closing
  }
  finish(response, script.trailer, script.ending);
}

async function writePaced(run: StreamRun): Promise<void> {
  const { content } = run.script;
  const interval = run.timing.tokenIntervalMs;
  if (interval <= 0) {
    run.response.write(content.join(''));
    return;
  }
  const batch = Math.max(1, Math.ceil(MIN_TIMER_MS / interval));
  for (let start = 0; start < content.length; start += batch) {
    if (start > 0) await run.sleep(interval * batch, run.signal);
    if (run.response.destroyed) return;
    run.response.write(content.slice(start, start + batch).join(''));
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
