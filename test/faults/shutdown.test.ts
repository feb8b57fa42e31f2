import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { systemClock } from '../../src/shared/clock.js';
import type { SimLatency } from '../../sim/index.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { flushPromises } from '../helpers/manual-time.js';
import { chatBody, connectOutcome, contentChunks, startChat, toEvents } from '../helpers/drain-client.js';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Rolling restarts lose nothing: the service's drain through the real HTTP API, in front of
 * a simulated backend that decodes slowly (20 tokens a second), so a stream is still running when the
 * drain begins. Every step waits for an observed event (first chunk, the backend's call), never a timer.
 */

const KEY = 'sk-drain';
const AUTH = { authorization: `Bearer ${KEY}` };
/** The key's concurrent-stream slot in the store (see policy/api-keys.ts). */
const SLOT = 'key:drain:streams';
const TOKENS_PER_SECOND = 20;

interface DrainStack {
  stack: Stack;
  store: StateStore;
}

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

async function startDrainStack(
  latency: SimLatency = { tokensPerSecond: TOKENS_PER_SECOND },
): Promise<DrainStack> {
  const store = createMemoryStateStore({ clock: systemClock });
  const stack = await startStack({
    backends: [{ id: 'a', models: ['sim-model'], latency }],
    store,
    table: (urls) => ({
      ...simpleTable({
        urls,
        group: ['a'],
        timeouts: { connect_ms: 2000, ttft_ms: 30_000, idle_ms: 10_000, total_ms: 60_000 },
      }),
      api_keys: [{ name: 'drain', sha256: hashKey(KEY), max_streams: 5 }],
    }),
  });
  stacks.push(stack);
  return { stack, store };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A client on a connection opened before the drain, that sends its request's last header line only
 * after the drain began: node:http counts a connection with a request under way as busy, so the drain
 * keeps it, and the request arrives during the drain. `finish` resolves once the server has answered
 * and closed the connection.
 */
async function openHalfRequest(
  url: string,
  head: string,
): Promise<{ finish(rest: string): Promise<RawAnswer> }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (data: Buffer) => (received += data.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  await new Promise<void>((resolve) => socket.write(head, () => resolve()));
  // the server shares this event loop: a few turns of it and it has accepted and read the bytes
  await flushPromises();
  return {
    async finish(rest) {
      socket.write(rest);
      await closed;
      const [top = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    },
  };
}

async function inFlight(store: StateStore): Promise<number | undefined> {
  return (await store.getInFlight(['a'])).get('a') ?? 0;
}

describe('draining the service (rolling restart)', () => {
  it('lets a stream started before the drain end with [DONE], while new work is refused and /ready is 503', async () => {
    const { stack, store } = await startDrainStack();
    const tokens = 40; // 2 s at 20 tokens a second
    const stream = startChat(stack.url, { headers: AUTH, stream: true, maxTokens: tokens });
    await stream.firstBytes;
    const ready = await openHalfRequest(stack.url, 'GET /ready HTTP/1.1\r\nhost: x\r\n');
    const body = chatBody(false, 4);
    const late = await openHalfRequest(
      stack.url,
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
        `authorization: ${AUTH.authorization}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`,
    );

    const started = performance.now();
    const drained = stack.service.drain(30_000);
    let drainedAt: number | undefined;
    void drained.then(() => (drainedAt = performance.now()));

    expect(await connectOutcome(stack.url)).toBe('refused');
    const readiness = await ready.finish('\r\n');
    expect(readiness.status).toBe(503);
    expect(readiness.headers['connection']).toBe('close');
    expect(JSON.parse(readiness.body)).toEqual({ status: 'not_ready' });
    const refused = await late.finish(`\r\n${body}`);
    expect(refused.status).toBe(503);
    expect(refused.headers).toMatchObject({ connection: 'close', 'retry-after': '1' });
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'shutting_down', type: 'api_error' } });

    const answer = await stream.answer;
    const streamEndedAt = performance.now();
    expect(answer.status).toBe(200);
    const events = toEvents(answer.text);
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.filter((event) => event !== '[DONE]' && event.error !== undefined)).toEqual([]);
    expect(contentChunks(events)).toBe(tokens);
    await drained;
    // the drain ends with the stream, not with the 30 s grace period
    expect((drainedAt ?? Infinity) - streamEndedAt).toBeLessThan(5000);
    console.info(
      `drain of a stream with ${tokens} tokens to go at most: ${Math.round(performance.now() - started)} ms`,
    );
    expect(await inFlight(store)).toBe(0);
    const line = stack.logger.lines.find((entry) => entry.message === 'drained');
    expect(line?.fields).toMatchObject({ in_flight: 1, stopped: 0, left_over: 0, store_settled: true });
  });

  it('lets a non-streaming request in flight finish, and closes its connection', async () => {
    const { stack } = await startDrainStack();
    const sim = stack.sim('a');
    const call = startChat(stack.url, { headers: AUTH, stream: false, maxTokens: 30 }); // 1.5 s at 20 tokens a second
    await expect.poll(() => sim.stats().inFlight, { timeout: 20_000 }).toBe(1);
    const drained = stack.service.drain(30_000);
    const answer = await call.answer;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    const body = JSON.parse(answer.text) as {
      choices: { finish_reason: string; message: { content: string } }[];
    };
    expect(body.choices[0]?.finish_reason).toBe('length');
    expect(body.choices[0]?.message.content).not.toBe('');
    await drained;
  });

  it('ends a stream still running when the grace period ends with the in-band SHUTTING_DOWN error', async () => {
    const { stack, store } = await startDrainStack();
    const stream = startChat(stack.url, { headers: AUTH, stream: true, maxTokens: 200 }); // 10 s at 20 tokens a second
    await stream.firstBytes;
    const started = performance.now();
    await stack.service.drain(300);
    const drainMs = performance.now() - started;
    const answer = await stream.answer;
    expect(answer.status).toBe(200);
    const events = toEvents(answer.text);
    expect(events).not.toContain('[DONE]');
    expect(events.at(-1)).toMatchObject({ error: { code: 'shutting_down' } });
    expect(contentChunks(events)).toBeLessThan(200);
    expect(drainMs).toBeLessThan(5000);
    console.info(`drain with a grace of 300 ms and a 10 s stream in flight: ${Math.round(drainMs)} ms`);
    // the stream's shared-state leases are back: in-flight count, stream slot; no cooldown for a restart
    expect(await inFlight(store)).toBe(0);
    expect(await store.acquireSlot({ key: SLOT, limit: 1, ttlMs: 1000 })).toBe(true);
    expect((await store.getCooldowns(['a'])).size).toBe(0);
    const request = stack.logger.lines.find((entry) => entry.message === 'request');
    expect(request?.fields).toMatchObject({ error_code: 'SHUTTING_DOWN' });
  });

  it('answers 503 SHUTTING_DOWN to a request not yet committed when the grace period ends', async () => {
    const { stack, store } = await startDrainStack({ ttftMs: 20_000 });
    const sim = stack.sim('a');
    const call = startChat(stack.url, { headers: AUTH, stream: true, maxTokens: 4 });
    await expect.poll(() => sim.stats().inFlight, { timeout: 20_000 }).toBe(1);
    await stack.service.drain(300);
    const answer = await call.answer;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'shutting_down' } });
    const request = stack.logger.lines.find((entry) => entry.message === 'request');
    expect(request?.fields).toMatchObject({ status: 503, error_code: 'SHUTTING_DOWN' });
    expect(await inFlight(store)).toBe(0);
    expect(await store.acquireSlot({ key: SLOT, limit: 1, ttlMs: 1000 })).toBe(true);
    expect((await store.getCooldowns(['a'])).size).toBe(0);
  });
});
