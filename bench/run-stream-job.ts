import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import type { StreamJob, StreamResult } from './load-schema.js';
import { elapsedMs, percentile, round } from './percentiles.js';

/** What one SSE stream looked like from the client's side. */
interface StreamTrace {
  status: number;
  done: boolean;
  /** Arrival of each non-empty `delta.content`, in milliseconds after the request was sent. */
  contentTimes: number[];
  durationMs: number;
}

/**
 * Opens `streams` SSE chat completions (one connection each; all at once, or one every
 * `startIntervalMs`) and records, per stream,
 * when each content chunk arrived. Chunks are timed when their `data:` line is parsed, so several
 * events coalesced into one TCP read show up as ~0 ms gaps, exactly as a client would see them.
 */
export async function runStreamJob(job: StreamJob): Promise<StreamResult> {
  const agent = new Agent({
    connections: job.streams,
    headersTimeout: job.timeoutMs,
    bodyTimeout: job.timeoutMs,
  });
  try {
    // Each outcome is settled as soon as it is created, so a stream failing while later ones are
    // still being started is never an unhandled rejection.
    const outcomes: Promise<PromiseSettledResult<StreamTrace>>[] = [];
    for (let index = 0; index < job.streams; index += 1) {
      if (index > 0 && job.startIntervalMs > 0) await sleep(job.startIntervalMs);
      outcomes.push(
        traceStream(job, agent).then(
          (value) => ({ status: 'fulfilled', value }),
          (reason: unknown) => ({ status: 'rejected', reason }),
        ),
      );
    }
    const settled = await Promise.all(outcomes);
    return toStreamResult(job, settled);
  } finally {
    await agent.close();
  }
}

async function traceStream(job: StreamJob, agent: Agent): Promise<StreamTrace> {
  const started = process.hrtime.bigint();
  const url = new URL(job.url);
  const response = await agent.request({
    origin: url.origin,
    path: url.pathname + url.search,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...job.headers },
    body: job.body,
    signal: AbortSignal.timeout(job.timeoutMs),
  });
  const trace: StreamTrace = { status: response.statusCode, done: false, contentTimes: [], durationMs: 0 };
  let pending = '';
  for await (const piece of response.body) {
    pending += (piece as Buffer).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    const now = elapsedMs(started);
    for (const line of lines) readLine({ line, now, trace });
  }
  trace.durationMs = elapsedMs(started);
  return trace;
}

function readLine(options: { line: string; now: number; trace: StreamTrace }): void {
  const line = options.line.trimEnd();
  if (!line.startsWith('data:')) return;
  const data = line.slice(5).trim();
  if (data === '[DONE]') {
    options.trace.done = true;
    return;
  }
  if (hasContent(data)) options.trace.contentTimes.push(options.now);
}

/** True when the event's first choice carries a non-empty `delta.content`; lenient about the rest. */
function hasContent(data: string): boolean {
  try {
    const event = JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] };
    const content = event.choices?.[0]?.delta?.content;
    return typeof content === 'string' && content.length > 0;
  } catch {
    return false;
  }
}

function toStreamResult(job: StreamJob, settled: PromiseSettledResult<StreamTrace>[]): StreamResult {
  const traces = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const completed = traces.filter((trace) => isSuccess(trace.status) && trace.done);
  const ttfc = sorted(completed.flatMap((trace) => trace.contentTimes.slice(0, 1)));
  const gapsByStream = completed.map((trace) =>
    trace.contentTimes.slice(1).map((time, index) => time - (trace.contentTimes[index] ?? time)),
  );
  const gaps = sorted(gapsByStream.flat());
  const durations = sorted(completed.map((trace) => trace.durationMs));
  const chunkCounts = completed.map((trace) => trace.contentTimes.length);
  return {
    kind: 'stream',
    streams: job.streams,
    completed: completed.length,
    non2xx: traces.filter((trace) => !isSuccess(trace.status)).length,
    errors:
      settled.length -
      traces.length +
      traces.filter((trace) => isSuccess(trace.status) && !trace.done).length,
    ttfcP50Ms: round(percentile(ttfc, 50)),
    ttfcP99Ms: round(percentile(ttfc, 99)),
    gapP50Ms: round(percentile(gaps, 50)),
    gapP99Ms: round(percentile(gaps, 99)),
    gapMaxMs: round(gaps.at(-1) ?? 0),
    durationP50Ms: round(percentile(durations, 50)),
    durationP99Ms: round(percentile(durations, 99)),
    stallThresholdMs: job.stallThresholdMs,
    stalledStreams: gapsByStream.filter((streamGaps) => streamGaps.some((gap) => gap > job.stallThresholdMs))
      .length,
    minContentChunks: chunkCounts.length === 0 ? 0 : Math.min(...chunkCounts),
    maxContentChunks: chunkCounts.length === 0 ? 0 : Math.max(...chunkCounts),
    ...(job.samples ? { samples: { ttfcMs: ttfc, gapsMs: gaps } } : {}),
  };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function sorted(values: number[]): number[] {
  return values.sort((left, right) => left - right);
}
