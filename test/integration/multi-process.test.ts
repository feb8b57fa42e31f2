import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../../src/policy/api-keys.js';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { freePort, spawnAutotier, startRedis, type SpawnedAutotier } from '../helpers/spawn-autotier.js';
import { HELLO, postChat, simpleTable } from '../helpers/start-stack.js';

const KEY = { authorization: 'Bearer sk-shared' };

interface DeploymentState {
  id: string;
  health: string;
}

async function healthOf(instance: SpawnedAutotier, id: string): Promise<string | undefined> {
  const state = (await (await fetch(`${instance.url}/autotier/state`, { headers: KEY })).json()) as {
    deployments: DeploymentState[];
  };
  return state.deployments.find((deployment) => deployment.id === id)?.health;
}

describe('two autotier processes on one Redis', () => {
  let fleet: SimFleet;
  let folder: string;
  let redis: { url: string; stop(): Promise<void> };
  let redisPort: number;
  let a: SpawnedAutotier;
  let b: SpawnedAutotier;

  beforeAll(async () => {
    fleet = await createSimulatedFleet({
      backends: [
        { id: 'x', models: ['sim-model'] },
        { id: 'y', models: ['sim-model'] },
      ],
    });
    folder = await mkdtemp(join(tmpdir(), 'autotier-multi-'));
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const urls = { x: fleet.byId('x').baseUrl, y: fleet.byId('y').baseUrl };
    const table = {
      ...simpleTable({
        urls,
        group: ['x', 'y'],
        cooldownMs: 30_000,
        timeouts: { connect_ms: 2000, ttft_ms: 10_000, idle_ms: 5000, total_ms: 20_000 },
      }),
      classifier: { mode: 'local' },
      // the subject is RPM: the key's concurrent-request cap (32 by default) is raised above the 100 sent at once
      api_keys: [
        { name: 'shared', sha256: hashKey('sk-shared'), rpm: 60, admin: true, max_concurrent_requests: 100 },
      ],
    };
    const path = join(folder, 'table.yaml');
    await writeFile(path, stringify(table));
    [a, b] = await Promise.all([
      spawnAutotier({ table: path, env: { AUTOTIER_REDIS_URL: redis.url } }),
      spawnAutotier({ table: path, env: { AUTOTIER_REDIS_URL: redis.url } }),
    ]);
  }, 150_000);

  /**
   * Each test starts from the same shared state: no fault, no cooldown or probe, an empty key window,
   * and both processes seeing both deployments healthy (their cooldown reads are cached for 500 ms, so
   * this waits for the condition rather than for a fixed time).
   */
  beforeEach(async () => {
    for (const id of ['x', 'y']) fleet.byId(id).setFault(null);
    const keys = ['x', 'y'].flatMap((id) => [`autotier:cooldown:${id}`, `autotier:probe:${id}`]);
    await redisCommand(redisPort, ['DEL', ...keys]);
    const health = async (): Promise<(string | undefined)[]> =>
      Promise.all([a, b].flatMap((instance) => ['x', 'y'].map((id) => healthOf(instance, id))));
    await expect.poll(health, { timeout: 10_000, interval: 100 }).toEqual(Array(4).fill('healthy'));
    // after the polls above, which count against the key's 60 RPM
    await redisCommand(redisPort, ['DEL', 'autotier:window:key:shared:rpm']);
  }, 20_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    await fleet?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('honors in B, once its 500 ms read cache lapses, a cooldown triggered through A', async () => {
    fleet.byId('x').setFault({ name: 'error_503' });
    fleet.byId('y').setFault({ name: 'error_503' });
    expect((await postChat(a.url, { model: 'tier:SIMPLE', messages: HELLO }, KEY)).status).toBe(503);
    // the faults stay: the health probes (of either process) would put a recovered deployment back
    // in service at once. B's cached read lasts 500 ms; 3 s leaves room for a loaded machine, and
    // without shared state B would never see A's 30 s cooldown at all (and would answer its own
    // UPSTREAM_SERVER_ERROR, not COOLING_DOWN)
    await expect.poll(() => healthOf(b, 'x'), { timeout: 3000, interval: 50 }).toBe('cooling_down');
    const response = await postChat(b.url, { model: 'tier:SIMPLE', messages: HELLO }, KEY);
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('COOLING_DOWN');
  });

  it('shares the session ladder', async () => {
    const session = { ...KEY, 'x-session-id': 'shared-conversation' };
    const explainAt = async (instance: SpawnedAutotier, model: string): Promise<string> => {
      const response = await fetch(`${instance.url}/v1/route`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...session },
        body: JSON.stringify({ model, messages: HELLO }),
      });
      return ((await response.json()) as { tier: string }).tier;
    };
    expect(await explainAt(b, 'tier:SIMPLE')).toBe('SIMPLE');
    expect((await postChat(a.url, { model: 'tier:EXPERT', messages: HELLO }, session)).status).toBe(200);
    expect(await explainAt(b, 'tier:SIMPLE')).toBe('EXPERT');
  });

  it('holds a 60 RPM key limit across both processes under concurrent load', async () => {
    const requests = Array.from({ length: 100 }, (_, index) =>
      postChat(index % 2 === 0 ? a.url : b.url, { model: 'tier:SIMPLE', messages: HELLO }, KEY).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
      ),
    );
    const statuses = await Promise.all(requests);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(60);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(50);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(40);
  });

  it('loses no request when Redis dies mid-run, and rejoins when it returns', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      if (index === 8) await redis.stop();
      const response = await postChat(
        index % 2 === 0 ? a.url : b.url,
        { model: 'tier:SIMPLE', messages: HELLO },
        KEY,
      );
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
    const degraded = (await (await fetch(`${a.url}/autotier/state`, { headers: KEY })).json()) as {
      shared_state: { degraded: boolean; errors: number };
    };
    expect(degraded.shared_state.degraded).toBe(true);
    redis = await startRedis(redisPort);
    await expect
      .poll(
        async () => {
          await postChat(a.url, { model: 'tier:SIMPLE', messages: HELLO }, KEY).then((response) =>
            response.arrayBuffer(),
          );
          const state = (await (await fetch(`${a.url}/autotier/state`, { headers: KEY })).json()) as {
            shared_state: { degraded: boolean };
          };
          return state.shared_state.degraded;
        },
        { timeout: 10_000, interval: 300 },
      )
      .toBe(false);
  }, 30_000);
});

/** One raw Redis command over RESP, so the test can reach into the shared state. */
async function redisCommand(port: number, parts: string[]): Promise<string> {
  const { Redis } = await import('ioredis');
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    return String(await client.call(parts[0] ?? 'PING', ...parts.slice(1)));
  } finally {
    client.disconnect();
  }
}
