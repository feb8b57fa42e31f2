import type { ServerResponse } from 'node:http';
import type { Sleep } from '../src/shared/clock.js';
import { toErrorBody, type SimError } from './error-body.js';
import type { FaultSpec } from './fault-spec.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export function sendJson(response: ServerResponse, status: number, body: string): void {
  if (response.destroyed) return;
  response.writeHead(status, JSON_HEADERS);
  response.end(body);
}

export function sendError(response: ServerResponse, error: SimError, headers?: Record<string, string>): void {
  if (response.destroyed) return;
  response.writeHead(error.status, headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers });
  response.end(toErrorBody(error));
}

export interface NonStreamRun {
  response: ServerResponse;
  body: string;
  /** Whole generation time (first token plus decode), in milliseconds. */
  delayMs: number;
  fault: FaultSpec | undefined;
  sleep: Sleep;
  signal: AbortSignal;
}

/**
 * Answers a non-stream request after the full generation time. Faults: `headers_then_nothing` sends
 * only headers; `cut_mid_stream` sends half the body (Content-Length of the whole) then destroys the
 * socket; `stall_mid_stream` sends half and stalls; `malformed_chunk` sends an unparseable 200 body.
 */
export async function runNonStream(run: NonStreamRun): Promise<void> {
  const { response, body } = run;
  if (run.fault?.name === 'headers_then_nothing') {
    response.writeHead(200, JSON_HEADERS);
    response.flushHeaders();
    return;
  }
  try {
    if (run.delayMs > 0) await run.sleep(run.delayMs, run.signal);
  } catch {
    return; // aborted by the client or by close()
  }
  if (response.destroyed) return;
  writeBody(response, body, run.fault?.name);
}

function writeBody(response: ServerResponse, body: string, faultName: string | undefined): void {
  if (faultName === 'malformed_chunk') {
    sendJson(response, 200, '{"choices": [ {broken');
    return;
  }
  if (faultName !== 'cut_mid_stream' && faultName !== 'stall_mid_stream') {
    sendJson(response, 200, body);
    return;
  }
  response.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body)) });
  const half = body.slice(0, Math.floor(body.length / 2));
  if (faultName === 'cut_mid_stream') response.write(half, () => response.destroy());
  else response.write(half);
}
