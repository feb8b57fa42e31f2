import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { createSimulatedFleet } from './create-simulated-fleet.js';
import { delay, postJson, readTimed, waitFor } from './sim-test-client.js';
import type { SimBackend } from './types.js';

const MESSAGES = [{ role: 'user', content: 'hello' }];
const opened: SimBackend[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((backend) => backend.close()));
});

async function start(id = 'sim-l'): Promise<SimBackend> {
  const backend = await createSimulatedBackend({ id, models: ['model-l'] });
  opened.push(backend);
  return backend;
}

/** A raw request on its own socket (no keep-alive pool), so socket counts are exact. */
function openRawStream(
  backend: SimBackend,
  fault: string,
): Promise<{ destroy: () => void; ended: Promise<string> }> {
  const body = JSON.stringify({ model: 'model-l', messages: MESSAGES, stream: true });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${backend.baseUrl}/chat/completions`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'x-sim-fault': fault } },
      (response) => {
        const ended = new Promise<string>((settle) => {
          response.on('close', () => settle(response.complete ? 'complete' : 'broken'));
          response.resume();
        });
        resolve({ destroy: () => request.destroy(), ended });
      },
    );
    request.on('error', () => undefined);
    request.once('error', reject);
    request.end(body);
  });
}

describe('close()', () => {
  it('ends a stalled stream promptly and the client sees the break', async () => {
    const backend = await start();
    const stalled = await openRawStream(backend, 'stall_mid_stream;after=1');
    expect(await waitFor(() => backend.stats().inFlight === 1)).toBe(true);
    const started = performance.now();
    await backend.close();
    expect(performance.now() - started).toBeLessThan(500);
    expect(await stalled.ended).toBe('broken');
  });

  it('ends a request that never got an answer and resolves again when called twice', async () => {
    const backend = await start();
    const pending = postJson(
      `${backend.baseUrl}/chat/completions`,
      { model: 'model-l', messages: MESSAGES },
      { headers: { 'x-sim-fault': 'no_response' } },
    );
    // settle it at once: the rejection comes while close() is awaited, before any expect attaches
    const outcome = pending.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(await waitFor(() => backend.stats().inFlight === 1)).toBe(true);
    await Promise.all([backend.close(), backend.close()]);
    expect(await outcome).toBeInstanceOf(Error);
    expect(backend.stats()).toMatchObject({ inFlight: 0, openSockets: 0 });
  });

  it('cancels pending latency timers so a slow stream does not hold the process', async () => {
    const backend = await start();
    backend.setLatency({ ttftMs: 60_000 });
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'model-l',
      messages: MESSAGES,
      stream: true,
    });
    const reading = readTimed(response);
    await backend.close();
    expect((await reading).error).toBeDefined();
  });
});

describe('stats', () => {
  it('counts requests by endpoint, and resetStats zeroes counters but not live gauges', async () => {
    const backend = await start();
    await postJson(`${backend.baseUrl}/chat/completions`, { model: 'model-l', messages: MESSAGES });
    await postJson(`${backend.baseUrl}/completions`, { model: 'model-l', prompt: 'x' });
    await fetch(`${backend.baseUrl}/models`);
    expect(backend.stats()).toMatchObject({
      requests: 3,
      chatRequests: 1,
      completionRequests: 1,
      inFlight: 0,
    });
    const stalled = await openRawStream(backend, 'stall_mid_stream');
    backend.resetStats();
    expect(backend.stats()).toMatchObject({ requests: 0, chatRequests: 0, byFault: {}, inFlight: 1 });
    stalled.destroy();
  });

  it('tracks open sockets and drops in-flight when the client aborts mid-stream', async () => {
    const backend = await start();
    backend.setLatency({ tokensPerSecond: 20 });
    const first = await openRawStream(backend, 'slow_first_token;ms=10');
    const second = await openRawStream(backend, 'slow_first_token;ms=10');
    expect(backend.stats()).toMatchObject({ openSockets: 2, inFlight: 2 });
    first.destroy();
    second.destroy();
    expect(await waitFor(() => backend.stats().openSockets === 0 && backend.stats().inFlight === 0)).toBe(
      true,
    );
  });
});

describe('fleet', () => {
  it('starts backends on distinct ports, finds them by id and closes them all', async () => {
    const fleet = await createSimulatedFleet({
      backends: [
        { id: 'one', models: ['m1'] },
        { id: 'two', models: ['m2'] },
      ],
    });
    try {
      expect(new Set(fleet.backends.map((backend) => backend.port)).size).toBe(2);
      const two = fleet.byId('two');
      const response = await postJson(`${two.baseUrl}/chat/completions`, { model: 'm2', messages: MESSAGES });
      expect(response.status).toBe(200);
      expect(() => fleet.byId('three')).toThrow(/three/);
    } finally {
      await fleet.close();
    }
    await expect(fetch(`${fleet.byId('one').baseUrl}/models`)).rejects.toThrow();
  });

  it('fails and closes the started backends when one port is taken', async () => {
    const taken = await start('taken');
    await expect(
      createSimulatedFleet({
        backends: [
          { id: 'ok', models: ['m'] },
          { id: 'clash', models: ['m'], port: taken.port },
        ],
      }),
    ).rejects.toThrow();
    await delay(10);
  });
});
