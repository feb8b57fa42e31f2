import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { RateJob, RateResult } from './load-schema.js';
import { elapsedMs, round, summarize } from './percentiles.js';

/**
 * Open-loop constant rate: request i is started at `start + i / rate` whether or not earlier ones
 * have finished, so a slow server faces a growing queue instead of a politely waiting client
 * (no coordinated omission). Requests beyond `connections` in flight wait inside undici's pool,
 * and that wait is part of their measured latency.
 *
 * autocannon's `overallRate` was not used: it gives each connection a per-second budget that it
 * spends back-to-back at the start of every second, i.e. bursts, not a constant rate.
 */
export async function runRateJob(job: RateJob): Promise<RateResult> {
  const url = new URL(job.url);
  const pool = new Pool(url.origin, {
    connections: job.connections,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const headers = { 'content-type': 'application/json', ...job.headers };
  const total = Math.max(1, Math.round(job.rate * job.durationSeconds));
  const intervalNs = 1e9 / job.rate;
  const tally = { ok: 0, non2xx: 0, errors: 0, durations: [] as number[] };

  const send = async (): Promise<void> => {
    const started = process.hrtime.bigint();
    try {
      const response = await pool.request({
        method: 'POST',
        path: url.pathname + url.search,
        headers,
        body: job.body,
      });
      await response.body.dump({ limit: Number.POSITIVE_INFINITY });
      if (response.statusCode >= 200 && response.statusCode < 300) {
        tally.ok += 1;
        tally.durations.push(elapsedMs(started));
      } else tally.non2xx += 1;
    } catch {
      tally.errors += 1;
    }
  };

  await warmUp(
    pool,
    { path: url.pathname + url.search, headers, body: job.body },
    job.warmupRequests ?? job.connections,
  );
  const start = process.hrtime.bigint();
  const inFlight: Promise<void>[] = [];
  let maxLagNs = 0;
  for (let index = 0; index < total; index += 1) {
    const due = start + BigInt(Math.round(index * intervalNs));
    const waitNs = Number(due - process.hrtime.bigint());
    if (waitNs > 1e6) await sleep(Math.floor(waitNs / 1e6));
    maxLagNs = Math.max(maxLagNs, Number(process.hrtime.bigint() - due));
    inFlight.push(send());
  }
  await Promise.all(inFlight);
  const wallMs = elapsedMs(start);
  await pool.close();

  const { minMs: _minMs, ...summary } = summarize(tally.durations);
  return {
    kind: 'rate',
    targetRate: job.rate,
    achievedRate: round((total - tally.errors) / (wallMs / 1000)),
    sent: total,
    ok: tally.ok,
    non2xx: tally.non2xx,
    errors: tally.errors,
    ...summary,
    maxSendLagMs: round(maxLagNs / 1e6),
  };
}

/** Sends `count` unmeasured requests at once, so the pool opens its connections before the clock starts. */
async function warmUp(
  pool: Pool,
  request: { path: string; headers: Record<string, string>; body: string },
  count: number,
): Promise<void> {
  await Promise.allSettled(
    Array.from({ length: count }, async () => {
      const response = await pool.request({ method: 'POST', ...request });
      await response.body.dump({ limit: Number.POSITIVE_INFINITY });
    }),
  );
}
