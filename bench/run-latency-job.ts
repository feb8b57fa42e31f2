import autocannon from 'autocannon';
import type { LatencyJob, LatencyResult } from './load-schema.js';
import { summarize } from './percentiles.js';

/**
 * Closed loop at concurrency 1 with autocannon: one keep-alive connection, no pipelining, the next
 * request written as soon as the previous response ends.
 *
 * autocannon's own `latency` summary comes from an HDR histogram with a 1 ms lowest discernible
 * value, i.e. integer milliseconds, useless for sub-millisecond loopback hops. Its `response` event
 * carries the fractional `process.hrtime` duration of each request (write to last body byte), so
 * every 2xx duration is kept and exact percentiles are computed here.
 */
export async function runLatencyJob(job: LatencyJob): Promise<LatencyResult> {
  const base = {
    url: job.url,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...job.headers },
    body: job.body,
    connections: 1,
    pipelining: 1,
    timeout: 30,
  };
  if (job.warmup > 0) await autocannon({ ...base, amount: job.warmup });

  const durations: number[] = [];
  let non2xx = 0;
  const instance = autocannon({ ...base, amount: job.requests });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) durations.push(responseTime);
    else non2xx += 1;
  });
  const timer =
    job.maxDurationSeconds === undefined
      ? undefined
      : setTimeout(() => instance.stop(), job.maxDurationSeconds * 1000);
  const result = await instance;
  clearTimeout(timer);
  const { minMs, ...summary } = summarize(durations);
  return {
    kind: 'latency',
    ok: durations.length,
    non2xx,
    errors: result.errors + result.timeouts,
    ...summary,
    minMs,
  };
}
