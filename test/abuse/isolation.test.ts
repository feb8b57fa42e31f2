import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { systemClock } from '../../src/shared/clock.js';
import type { Responder } from '../../sim/index.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis-state-store.js';
import { FAST_TIMEOUTS, postChat, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Tenants are isolated from each other's faults: a key whose request content makes the fleet answer
 * 500 does not cool the deployments down for the other keys, a chain whose deployments all cool down
 * still tries one, and a key that holds many streams open without reading them does not take the
 * fleet's connections from the other keys.
 */

const REDIS_URL = process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
const POISON = 'POISON-PILL';

/** The simulator's stand-in for a prompt that crashes the engine: 500 whenever the body carries it. */
const poisoned: Responder = ({ body }) =>
  JSON.stringify(body).includes(POISON) ? { status: 500, errorMessage: 'engine crashed' } : undefined;
/** A real outage: every request fails. */
const outage: Responder = () => ({ status: 500, errorMessage: 'engine is down' });

const chat = (content: string, stream = false) => ({
  model: 'tier:SIMPLE',
  messages: [{ role: 'user', content }],
  max_tokens: 4,
  stream,
});

interface Tally {
  ok: number;
  failed: string[];
}

async function send(url: string, body: Record<string, unknown>, secret: string): Promise<string> {
  const response = await postChat(url, body, bearer(secret));
  const text = await response.text();
  if (response.status === 200) return 'OK';
  const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '?';
  return `${response.status} ${code}`;
}

const tally = (outcomes: string[]): Tally => ({
  ok: outcomes.filter((outcome) => outcome === 'OK').length,
  failed: outcomes.filter((outcome) => outcome !== 'OK'),
});

const KEYS = ['poison', 'poison2', 'victim', 'hog', 'hog2'].map((name) => ({
  name,
  sha256: hashKey(`sk-${name}`),
}));

function poisonTable(urls: Record<string, string>, group: string[]) {
  const tier = { group, timeouts: FAST_TIMEOUTS, max_tokens: { cap: 256, default: 4 } };
  return {
    deployments: Object.entries(urls).map(([id, url]) => ({
      id,
      model: 'sim-model',
      base_url: url,
      context_window: 32768,
    })),
    tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    api_keys: KEYS,
    balancer: {
      cooldown_ms: 5000,
      retry: { max_attempts: 4, backoff_base_ms: 50, backoff_max_ms: 200, retry_after_cap_ms: 3000 },
    },
  };
}

describe('a key whose requests crash the engine leaves the other keys served', () => {
  let stack: Stack;
  // a fresh stack per case: cooldowns left by one case must not decide the next
  beforeEach(async () => {
    stack = await startStack({
      backends: ['a', 'b', 'c', 'solo'].map((id) => ({ id, models: ['sim-model'], responder: poisoned })),
      table: (urls) => {
        const table = poisonTable(urls, ['a', 'b']);
        const simple = { ...table.tiers.SIMPLE, fallback: ['c'] };
        const solo = { ...table.tiers.SIMPLE, group: ['solo'] };
        return { ...table, tiers: { ...table.tiers, SIMPLE: simple, MODERATE: solo } };
      },
    });
  });
  afterEach(() => stack.close());

  /** Alternates `rounds` poison requests (from each poison key) with one victim request each. */
  async function alternate(input: {
    poisonBody: (round: number) => Record<string, unknown>;
    poisonKeys: string[];
    victimBody: Record<string, unknown>;
    rounds: number;
  }): Promise<{ victim: Tally; poison: Tally }> {
    const victim: string[] = [];
    const poison: string[] = [];
    for (let round = 0; round < input.rounds; round += 1) {
      for (const key of input.poisonKeys) poison.push(await send(stack.url, input.poisonBody(round), key));
      victim.push(await send(stack.url, input.victimBody, 'sk-victim'));
    }
    return { victim: tally(victim), poison: tally(poison) };
  }

  it('answers every victim request while a non-streamed poison request repeats', async () => {
    const result = await alternate({
      poisonBody: () => chat(`summarize ${POISON}`),
      poisonKeys: ['sk-poison'],
      victimBody: chat('hello there'),
      rounds: 20,
    });
    expect(result.poison.ok).toBe(0);
    expect(result.victim.failed).toEqual([]);
  });

  it('answers every victim request while a streamed poison request repeats', async () => {
    const result = await alternate({
      poisonBody: () => chat(`summarize ${POISON}`, true),
      poisonKeys: ['sk-poison'],
      victimBody: chat('hello there', true),
      rounds: 20,
    });
    expect(result.poison.ok).toBe(0);
    expect(result.victim.failed).toEqual([]);
  });

  it('answers every victim request while two keys send poison that changes every time', async () => {
    const result = await alternate({
      poisonBody: (round) => chat(`${POISON} variant ${round} ${Math.random()}`),
      poisonKeys: ['sk-poison', 'sk-poison2'],
      victimBody: chat('hello there'),
      rounds: 15,
    });
    expect(result.poison.ok).toBe(0);
    expect(result.victim.failed).toEqual([]);
  });

  it('answers every victim request on a tier with a single deployment', async () => {
    const result = await alternate({
      poisonBody: (round) => ({ ...chat(`${POISON} ${round}`), model: 'tier:MODERATE' }),
      poisonKeys: ['sk-poison'],
      victimBody: { ...chat('hello there'), model: 'tier:MODERATE' },
      rounds: 15,
    });
    expect(result.poison.ok).toBe(0);
    expect(result.victim.failed).toEqual([]);
  });

  it('tries a poison request on two deployments of its chain, then once when it comes again', async () => {
    const calls = () => ['a', 'b', 'c'].reduce((sum, id) => sum + stack.sim(id).stats().chatRequests, 0);
    expect(await send(stack.url, chat(`once more ${POISON}`), 'sk-poison')).toBe('502 upstream_server_error');
    expect(calls()).toBe(2);
    expect(await send(stack.url, chat(`once more ${POISON}`), 'sk-poison')).toBe('502 upstream_server_error');
    expect(calls()).toBe(3);
  });

  it('still cools deployments down in a real outage, and takes them back when it ends', async () => {
    const benched = () => stack.logger.lines.filter((line) => line.message === 'deployment benched');
    const before = benched().length;
    for (const id of ['a', 'b', 'c']) stack.sim(id).setResponder(outage);
    for (let index = 0; index < 4; index += 1)
      expect(await send(stack.url, chat(`request ${index} in an outage`), 'sk-victim')).toMatch(/^50\d /);
    const ids = new Set(
      benched()
        .slice(before)
        .map((line) => line.fields['deployment']),
    );
    expect(ids).toEqual(new Set(['a', 'b', 'c']));
    for (const id of ['a', 'b', 'c']) stack.sim(id).setResponder(poisoned);
    expect(await send(stack.url, chat('after the outage'), 'sk-victim')).toBe('OK');
  });
});

/** Polls `condition` every 20 ms until it holds; fails after 10 s (a loaded machine included). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens a chat stream on a raw socket and never reads it (the kernel buffers fill, then stay full). */
function openUnreadStream(url: string, secret: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ ...chat('tell me a long story', true), max_tokens: 256 });
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        [
          'POST /v1/chat/completions HTTP/1.1',
          `host: ${hostname}:${port}`,
          'content-type: application/json',
          `authorization: Bearer ${secret}`,
          `content-length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
      socket.pause();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

describe('a key that holds streams open without reading them', () => {
  let stack: Stack;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    stack = await startStack({
      // 256 tokens at 8 per second: each stream holds its upstream call for about 30 s
      backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 8 } }],
      table: (urls) => poisonTable(urls, ['a']),
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await stack.close();
  });

  it('leaves the other keys served while 130 of its streams stay open', async () => {
    for (let index = 0; index < 130; index += 1) sockets.push(await openUnreadStream(stack.url, 'sk-hog'));
    // until the hog's admitted streams reached the simulator (each holds one upstream call)
    await until(() => stack.sim('a').stats().inFlight >= 16);
    const held = stack.sim('a').stats().inFlight;
    const victim: string[] = [];
    for (let index = 0; index < 10; index += 1)
      victim.push(await send(stack.url, { ...chat('hello there'), max_tokens: 1 }, 'sk-victim'));
    expect(tally(victim).failed).toEqual([]);
    // the default key_limits.max_streams: the rest of the 130 were refused before any upstream call
    expect(held).toBe(16);
  });

  it('leaves the other keys served while 100 of its non-streamed requests wait on the fleet', async () => {
    const hog = new AbortController();
    const refused: string[] = [];
    for (let index = 0; index < 100; index += 1)
      void fetch(`${stack.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer('sk-hog2') },
        body: JSON.stringify({ ...chat('tell me a long story'), max_tokens: 256 }),
        signal: hog.signal,
      })
        .then(async (response) => {
          const text = await response.text();
          if (response.status === 429 && text.includes('32 concurrent requests')) refused.push(text);
        })
        .catch(() => undefined);
    await until(() => refused.length >= 68);
    const victim: string[] = [];
    for (let index = 0; index < 5; index += 1)
      victim.push(await send(stack.url, { ...chat('hello there'), max_tokens: 1 }, 'sk-victim'));
    hog.abort();
    expect(tally(victim).failed).toEqual([]);
    // the default key_limits.max_concurrent_requests: 32 held, the other 68 refused
    expect(refused.length).toBe(68);
  });
});

describe('a key cap shared by two instances on one Redis', () => {
  const stacks: Stack[] = [];
  const stores: RedisStateStore[] = [];
  const hog = new AbortController();
  beforeAll(async () => {
    const prefix = `test-${randomUUID()}`;
    for (let index = 0; index < 2; index += 1) {
      const store = createRedisStateStore({ url: REDIS_URL, clock: systemClock, prefix });
      stores.push(store);
      expect(await store.ready(5000)).toBe(true);
      stacks.push(
        await startStack({
          store,
          backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 8 } }],
          table: (urls) => ({
            ...poisonTable(urls, ['a']),
            key_limits: { max_concurrent_requests: 4, max_streams: 2 },
          }),
        }),
      );
    }
  });
  afterAll(async () => {
    hog.abort();
    for (const stack of stacks) await stack.close();
    for (const store of stores) await store.close();
  });

  it('refuses the request past the cap on the other instance, naming the cap', async () => {
    const [first, second] = stacks;
    if (first === undefined || second === undefined) throw new Error('two stacks expected');
    for (let index = 0; index < 4; index += 1)
      void fetch(`${first.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer('sk-hog') },
        body: JSON.stringify({ ...chat('tell me a long story'), max_tokens: 256 }),
        signal: hog.signal,
      }).catch(() => undefined);
    await until(() => first.sim('a').stats().inFlight >= 4);
    const refused = await postChat(second.url, chat('one more'), bearer('sk-hog'));
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('4 concurrent requests for key hog');
    expect(await send(second.url, chat('hello there'), 'sk-victim')).toBe('OK');
  });
});

describe('two deployments on one server', () => {
  let stack: Stack;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 8 } }],
      table: (urls) => {
        const table = poisonTable({ one: urls['a'] ?? '', two: urls['a'] ?? '' }, ['one', 'two']);
        // an operator who trusts the hog with more than the default caps
        const hog = {
          name: 'hog',
          sha256: hashKey('sk-hog'),
          max_streams: 500,
          max_concurrent_requests: 500,
        };
        return { ...table, api_keys: [...KEYS.filter((key) => key.name !== 'hog'), hog] };
      },
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await stack.close();
  });

  it('keep their own connections: streams held on one leave the other its calls', async () => {
    for (let index = 0; index < 100; index += 1) sockets.push(await openUnreadStream(stack.url, 'sk-hog'));
    await until(() => stack.sim('a').stats().inFlight >= 64);
    const victim: string[] = [];
    for (let index = 0; index < 5; index += 1)
      victim.push(await send(stack.url, { ...chat('hello there'), max_tokens: 1 }, 'sk-victim'));
    expect(tally(victim).failed).toEqual([]);
    expect(stack.logger.lines.filter((line) => line.message === 'deployment benched')).toEqual([]);
  });
});
