import type { Server } from 'node:http';
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { postChat, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Streams have back-pressure: a client that does not read stops autotier reading the deployment, and
 * one that has not drained for the tier's idle_ms is cut, its deployment freed. The clients are raw
 * sockets that never read (or read in bursts), against the real app and simulator on port 0.
 */

/** The tier's idle_ms here: also how long a client may go without draining. */
const IDLE_MS = 400;
/** Characters of one simulated token: one SSE event is about this long. */
const TOKEN_CHARS = 7_500;
/** Tokens of the big answer: 4,000 x 7.5 kB, a 30 MB stream. */
const BIG_TOKENS = 4_000;
const BIG_BYTES = TOKEN_CHARS * BIG_TOKENS;
/**
 * Most of the big stream autotier may pull from a deployment for a client that reads nothing, bytes:
 * its own buffer (256 Ki characters of events, one socket write) plus what the kernel's socket
 * buffers of both loopback connections take (Linux grows them to several MB), about half the 30 MB.
 */
const PULLED_BOUND = 16 * 1024 * 1024;
/**
 * Memory the process may hold above its baseline once the clients are cut, bytes: noise of the
 * allocator and of the test's own objects, under a tenth of one client's stream.
 */
const MEMORY_SLACK = 3 * 1024 * 1024;
/** Generous bound on any wait for an event, ms (a loaded 2-core machine). */
const WAIT_MS = 15_000;

/** The key of most requests here; STREAMER_KEY may hold one stream at a time. */
const KEY = 'sk-streams';
const STREAMER_KEY = 'sk-streamer';
const AUTH = { authorization: `Bearer ${KEY}` };

/** One token of the big answers, streamed over and over (the simulator frames it once). */
const TOKEN = ` ${'x'.repeat(TOKEN_CHARS - 1)}`;

/** Garbage collection on demand (the test process has no --expose-gc flag of its own). */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap and buffers held by this process (autotier, the simulator and the clients), bytes, after a full GC. */
function heldBytes(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** Polls `check` every 10 ms until it holds or `timeoutMs` passes; resolves to whether it held. */
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a client got once it read to the end: the status line, the bytes, and how the body ended. */
interface Received {
  head: string;
  bytes: number;
  /** The last 64 bytes (latin1): `data: [DONE]` there means the stream was whole. */
  tail: string;
}

interface RawClient {
  socket: Socket;
  /** Reads everything left, keeping only its size, start and end. */
  readToEnd(): Promise<Received>;
}

/** Sends a chat request over a raw socket that reads nothing until told to (`readToEnd`). */
function requestWithoutReading(url: string, body: Record<string, unknown>, key = KEY): RawClient {
  const { hostname, port } = new URL(url);
  const text = JSON.stringify(body);
  // a small receive buffer in the client process: what the kernel holds is the rest of the window
  const options: NetConnectOpts & { readableHighWaterMark: number } = {
    host: hostname,
    port: Number(port),
    readableHighWaterMark: 1024,
  };
  const socket = connect(options);
  socket.pause();
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ${key}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
      `connection: close\r\n\r\n${text}`,
  );
  return {
    socket,
    readToEnd: () =>
      new Promise((resolve) => {
        let head = '';
        let bytes = 0;
        let tail = '';
        socket.on('data', (part: Buffer) => {
          if (head === '') head = part.toString('latin1', 0, 64);
          bytes += part.length;
          tail = (tail + part.toString('latin1', Math.max(0, part.length - 64))).slice(-64);
          // a whole chunked body: the connection may stay open for keep-alive
          if (tail.endsWith('\r\n0\r\n\r\n')) socket.destroy();
        });
        socket.on('close', () => resolve({ head, bytes, tail }));
        socket.on('error', () => undefined);
        socket.resume();
      }),
  };
}

/**
 * Reads a chat answer in bursts of `burstBytes`, pausing `pauseMs` after each: a slow reader that
 * still drains well within the idle limit.
 */
function readSlowly(
  url: string,
  body: Record<string, unknown>,
  input: { burstBytes: number; pauseMs: number },
): Promise<Received & { ms: number }> {
  const client = requestWithoutReading(url, body);
  const startedAt = performance.now();
  let sinceBurst = 0;
  client.socket.on('data', (part: Buffer) => {
    sinceBurst += part.length;
    if (sinceBurst < input.burstBytes) return;
    sinceBurst = 0;
    client.socket.pause();
    setTimeout(() => client.socket.resume(), input.pauseMs);
  });
  return client.readToEnd().then((received) => ({ ...received, ms: performance.now() - startedAt }));
}

const bigRequest = (
  stream: boolean,
  tokens = BIG_TOKENS,
  model = 'tier:SIMPLE',
): Record<string, unknown> => ({
  model,
  messages: [{ role: 'user', content: `big answer ${tokens}` }],
  stream,
  max_tokens: tokens,
});

describe('streams have back-pressure', () => {
  let stack: Stack;
  /** A second listener of the same service, for the raw clients: its open connections are counted. */
  let edge: { server: Server; url: string };
  const connections = (): Promise<number> =>
    new Promise((resolve) => edge.server.getConnections((_error, count) => resolve(count)));
  const store = createMemoryStateStore({ clock: systemClock });
  const inFlight = async (id = 'big'): Promise<number> => (await store.getInFlight([id])).get(id) ?? 0;
  /** Requests logged as cut for not reading. */
  const stallLines = (): number =>
    stack.logger.lines.filter(
      (line) =>
        line.message === 'request' && String(line.fields['error']).startsWith('client stopped reading'),
    ).length;

  beforeAll(async () => {
    stack = await startStack({
      store,
      backends: [
        {
          id: 'big',
          models: ['sim-model'],
          // the prompt names how many tokens of TOKEN_CHARS to answer
          responder: ({ body }) => {
            const text = JSON.stringify(body);
            const tokens = Number(/big answer (\d+)/.exec(text)?.[1] ?? 0);
            if (tokens === 0) return undefined;
            return { content: TOKEN, repeat: tokens };
          },
        },
      ],
      table: (urls) => {
        const tier = (group: string) => ({
          group: [group],
          timeouts: { connect_ms: 10_000, ttft_ms: 10_000, idle_ms: IDLE_MS, total_ms: 120_000 },
          max_tokens: { cap: 8192, default: 16 },
        });
        const url = urls['big'] ?? '';
        return {
          deployments: [
            // one slot: a stalled client that kept it would leave the next request nowhere to go
            { id: 'big', model: 'sim-model', base_url: url, context_window: 65_536, max_concurrency: 1 },
            { id: 'wide', model: 'sim-model', base_url: url, context_window: 65_536 },
          ],
          tiers: { SIMPLE: tier('big'), MODERATE: tier('wide'), COMPLEX: tier('wide'), EXPERT: tier('wide') },
          api_keys: [
            { name: 'streams', sha256: hashKey(KEY) },
            { name: 'streamer', sha256: hashKey(STREAMER_KEY), max_streams: 1 },
          ],
        };
      },
    });
    edge = await stack.service.listen(0);
    // warm up the paths measured below, so the baseline holds what they load once
    const response = await postChat(stack.url, bigRequest(true, 10), AUTH);
    await response.text();
  });
  afterAll(() => stack.close());

  it('stops reading the deployment while the client reads nothing, cuts the client after idle_ms, and frees the deployment', async () => {
    const sim = stack.sim('big');
    sim.resetStats();
    const client = requestWithoutReading(edge.url, bigRequest(true));
    const startedAt = performance.now();
    // the deployment's request ends once autotier has cut the client and aborted the upstream call
    expect(await waitFor(() => sim.stats().streamedBytes > 0)).toBe(true);
    expect(await waitFor(() => sim.stats().inFlight === 0)).toBe(true);
    const cutMs = performance.now() - startedAt;
    expect(await waitFor(async () => (await inFlight()) === 0)).toBe(true);
    expect(sim.stats().streamedBytes).toBeLessThan(PULLED_BOUND);
    expect(cutMs).toBeGreaterThanOrEqual(IDLE_MS);
    expect(stallLines()).toBeGreaterThan(0);
    // the client, reading at last, finds a stream that ends without [DONE]
    const received = await client.readToEnd();
    expect(received.head.startsWith('HTTP/1.1 200')).toBe(true);
    expect(received.bytes).toBeLessThan(BIG_BYTES);
    expect(received.tail).not.toContain('data: [DONE]');
    // the deployment's one slot is free again, and it is not benched for the client's stall
    const next = await postChat(stack.url, bigRequest(true, 10), AUTH);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-autotier-deployment')).toBe('big');
    expect(await next.text()).toContain('data: [DONE]');
  });

  it('holds no more memory for five non-reading clients of a 30 MB stream once they are cut, nor after they leave', async () => {
    const sim = stack.sim('big');
    sim.resetStats();
    const baseline = heldBytes();
    const before = stallLines();
    const clients = Array.from({ length: 5 }, () =>
      requestWithoutReading(edge.url, bigRequest(true, BIG_TOKENS, 'tier:MODERATE')),
    );
    expect(await waitFor(() => stallLines() - before === 5)).toBe(true);
    expect(await waitFor(() => sim.stats().inFlight === 0)).toBe(true);
    expect(sim.stats().streamedBytes).toBeLessThan(5 * PULLED_BOUND);
    // cut, but still connected: autotier holds nothing of theirs
    expect(heldBytes() - baseline).toBeLessThan(MEMORY_SLACK);
    const received = await Promise.all(clients.map((client) => client.readToEnd()));
    for (const { tail } of received) expect(tail).not.toContain('data: [DONE]');
    expect(await waitFor(async () => (await inFlight('wide')) === 0)).toBe(true);
    expect(heldBytes() - baseline).toBeLessThan(MEMORY_SLACK);
  });

  it('keeps the stream of a slow reader that drains within idle_ms, however long the answer takes', async () => {
    const before = stallLines();
    // 3 MB read 128 kB at a time with 100 ms pauses: several idle limits long in all
    const received = await readSlowly(edge.url, bigRequest(true, 400), {
      burstBytes: 128 * 1024,
      pauseMs: 100,
    });
    expect(received.head.startsWith('HTTP/1.1 200')).toBe(true);
    expect(received.bytes).toBeGreaterThan(400 * TOKEN_CHARS);
    expect(received.tail).toContain('data: [DONE]');
    expect(received.ms).toBeGreaterThan(3 * IDLE_MS);
    expect(stallLines()).toBe(before);
  });

  it('cuts a client that reads none of a 30 MB JSON answer after idle_ms, and holds none of the answer after', async () => {
    const baseline = heldBytes();
    const sim = stack.sim('big');
    sim.resetStats();
    const client = requestWithoutReading(edge.url, bigRequest(false, BIG_TOKENS, 'tier:MODERATE'));
    // the deployment is answering: autotier has the client's request
    expect(await waitFor(() => sim.stats().streamedBytes > 0)).toBe(true);
    // autotier closes the connection of the client that still has not read
    expect(await waitFor(async () => (await connections()) === 0)).toBe(true);
    expect(client.socket.destroyed).toBe(false);
    // the cut socket's pending write (the answer) is let go as its close is processed, which on a
    // loaded machine can come a little after the connection count drops: what must not happen is that
    // the answer stays held
    expect(await waitFor(() => heldBytes() - baseline < MEMORY_SLACK)).toBe(true);
    const received = await client.readToEnd();
    expect(received.head.startsWith('HTTP/1.1 200')).toBe(true);
    expect(received.bytes).toBeLessThan(BIG_BYTES);
    expect(await waitFor(async () => (await inFlight('wide')) === 0)).toBe(true);
  });

  it("frees the key's stream slot of a client cut for not reading: the key streams again at once", async () => {
    const before = stallLines();
    const client = requestWithoutReading(
      edge.url,
      bigRequest(true, BIG_TOKENS, 'tier:MODERATE'),
      STREAMER_KEY,
    );
    expect(await waitFor(() => stallLines() - before === 1)).toBe(true);
    const streamer = { authorization: `Bearer ${STREAMER_KEY}` };
    const next = await postChat(stack.url, bigRequest(true, 10, 'tier:MODERATE'), streamer);
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('data: [DONE]');
    client.socket.destroy();
  });
});
