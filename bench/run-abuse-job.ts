import { Pool } from 'undici';
import type { AbuseJob, AbuseResult } from './load-schema.js';
import { summarize } from './percentiles.js';

/**
 * Large or hostile requests one after another, with GET /health probed beside them on its own
 * connection: the request times say what the router adds for such a body, the probe times whether
 * its event loop stayed free meanwhile. The body is turned into bytes once, before timing.
 */
export async function runAbuseJob(job: AbuseJob): Promise<AbuseResult> {
  const url = new URL(job.url);
  const health = new URL(job.healthUrl);
  const requests = new Pool(url.origin, { connections: 1 });
  const probes = new Pool(health.origin, { connections: 1 });
  const body = Buffer.from(job.body);
  const headers = { 'content-type': 'application/json', ...job.headers };
  const send = async (): Promise<{ status: number; ms: number }> => {
    const started = performance.now();
    const response = await requests.request({ path: url.pathname, method: 'POST', headers, body });
    await response.body.arrayBuffer();
    return { status: response.statusCode, ms: performance.now() - started };
  };
  try {
    for (let index = 0; index < job.warmup; index += 1) await send();
    const healthTimes: number[] = [];
    let probing = true;
    const probeLoop = (async () => {
      while (probing) {
        const started = performance.now();
        const response = await probes.request({ path: health.pathname, method: 'GET' });
        await response.body.arrayBuffer();
        healthTimes.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, job.healthIntervalMs));
      }
    })();
    const times: number[] = [];
    const statuses: Record<string, number> = {};
    for (let index = 0; index < job.requests; index += 1) {
      const { status, ms } = await send();
      times.push(ms);
      statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
    }
    probing = false;
    await probeLoop;
    const { minMs: _minRequest, ...request } = summarize(times);
    const { minMs: _minHealth, ...healthSummary } = summarize(healthTimes);
    return { kind: 'abuse', request, statuses, health: healthSummary, healthProbes: healthTimes.length };
  } finally {
    await Promise.all([requests.close(), probes.close()]);
  }
}
