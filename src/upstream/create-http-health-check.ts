import type { HealthCheck, HealthCheckRequest, HealthCheckResult } from './health-check.js';
import { readDeploymentKey } from './deployment-key.js';
import { toProbeRequest } from './to-probe-request.js';
import { Agent } from './undici-dispatchers.js';

export interface HttpHealthCheckOptions {
  /** Reads an API key from the environment by variable name (the same reader the upstream uses). */
  readSecret: (name: string) => string | undefined;
}

/** Bytes of a probe's response body read before it is dropped: /health is empty, /models small. */
const BODY_LIMIT_BYTES = 64 * 1024;

/** The failure of a probe without the error's text (which names hosts): its code, or its kind. */
function toDetail(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'error';
}

/**
 * Health probes over undici, on an agent of their own (a probe never queues behind user streams in
 * the upstream's pools). The timeout covers the whole exchange, body included; timers are cleared in
 * `finally`.
 */
export function createHttpHealthCheck(options: HttpHealthCheckOptions): HealthCheck {
  const agent = new Agent({ connections: 2, keepAliveTimeout: 10_000 });

  async function check(probe: HealthCheckRequest): Promise<HealthCheckResult> {
    const key = readDeploymentKey(probe.deployment, options.readSecret);
    const target = toProbeRequest(probe.deployment, probe.kind, key);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, probe.timeoutMs);
    const onAbort = (): void => controller.abort();
    probe.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (probe.signal?.aborted === true) return { healthy: false, detail: 'aborted' };
      const url = new URL(target.url);
      const response = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: target.method,
        headers: target.headers,
        body: target.body ?? null,
        signal: controller.signal,
      });
      await response.body.dump({ limit: BODY_LIMIT_BYTES });
      const healthy = response.statusCode >= 200 && response.statusCode < 300;
      return { healthy, detail: `status ${response.statusCode}` };
    } catch (error) {
      return { healthy: false, detail: toDetail(error, timedOut) };
    } finally {
      clearTimeout(timer);
      probe.signal?.removeEventListener('abort', onAbort);
    }
  }

  return { check, close: () => agent.close() };
}
