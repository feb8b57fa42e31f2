import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sample } from '../helpers/prometheus.js';
import { HELLO, postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const KEY_ENV = 'AUTOTIER_TEST_PROBE_KEY';
const KEY = 'sk-probe-integration-0123456789';

describe('background health probes through the whole service', () => {
  let stack: Stack;
  const metricsText = async (): Promise<string> => (await fetch(`${stack.url}/metrics`)).text();
  const probes = async (outcome: string): Promise<number> =>
    sample(await metricsText(), 'autotier_health_probes_total', { deployment: 'a', outcome });

  beforeAll(async () => {
    process.env[KEY_ENV] = KEY;
    stack = await startStack({
      backends: [
        { id: 'a', models: ['sim-model'] },
        { id: 'b', models: ['sim-model'] },
      ],
      random: () => 0,
      table: (urls) => {
        const base = simpleTable({ urls, group: ['a'], fallback: ['b'], cooldownMs: 60_000 });
        return {
          ...base,
          deployments: base.deployments.map((deployment) => ({ ...deployment, api_key_env: KEY_ENV })),
          balancer: { ...base.balancer, health_probes: { first_interval_ms: 200, max_interval_ms: 400 } },
        };
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    delete process.env[KEY_ENV];
  });

  it('counts failed probes while the primary is down, and puts it back in service once it answers /health', async () => {
    stack.sim('a').setFault({ name: 'error_503' });
    const failed = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(failed.headers.get('x-autotier-deployment')).toBe('b');
    await expect.poll(() => probes('unhealthy'), { timeout: 5000, interval: 50 }).toBeGreaterThanOrEqual(2);
    const failures = stack.logger.lines.filter((line) => line.message === 'health probe failed');
    expect(failures[0]).toMatchObject({
      level: 'warn',
      fields: { deployment: 'a', probe: 'health', detail: 'status 503' },
    });
    stack.sim('a').setFault(null);
    await expect.poll(() => probes('healthy'), { timeout: 5000, interval: 50 }).toBe(1);
    expect(stack.logger.lines.map((line) => line.message)).toContain('deployment back in service');
    const back = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(back.headers.get('x-autotier-deployment')).toBe('a');
    expect(back.headers.get('x-autotier-attempts')).toBe('1');
    // while it was down only the first request reached a (its call and its retry in place, which
    // benched it); then this one
    expect(stack.sim('a').stats().chatRequests).toBe(3);
    expect(JSON.stringify(stack.logger.lines)).not.toContain(KEY);
  });
});
