import { afterEach, describe, expect, it } from 'vitest';
import { deploymentSchema } from '../../src/config/table-part-schemas.js';
import { systemClock } from '../../src/shared/clock.js';
import { createCancelController } from '../../src/shared/cancel-signal.js';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { createHttpUpstream } from '../../src/upstream/create-http-upstream.js';
import { simpleTable } from '../helpers/start-stack.js';
import { callChat } from './call-chat.js';
import { startFaultStack, type FaultStack } from './start-fault-stack.js';

/**
 * connect_ms is timed by the attempt watchdog with a native timer, not by undici's `headersTimeout`
 * (its "fast timers" tick every 499 ms, lib/util/timers.js, and were measured 0.5-1 s late; it is set
 * to connect_ms + 1000 as a backstop in create-http-upstream.ts). Which timer ended the attempt is
 * checked by its message, not by wall time: timers fire in due order however loaded the machine is,
 * while a wall-time bound on the client's elapsed time was measured at 1.66 s under load (connect_ms
 * 300 ms). ttft_ms is far above connect_ms here, so only connect_ms can end the attempt.
 */
const CONNECT_MS = 300;
const LIMITS = { connectMs: CONNECT_MS, ttftMs: 5000, idleMs: 1000 };

describe('connect_ms precision', () => {
  let fleet: SimFleet | undefined;
  let stack: FaultStack | undefined;
  afterEach(async () => {
    await fleet?.close();
    await stack?.close();
    fleet = stack = undefined;
  });

  it('ends an attempt without response headers by the watchdog at connect_ms, not by undici later', async () => {
    fleet = await createSimulatedFleet({ backends: [{ id: 'a', models: ['sim-model'] }] });
    fleet.byId('a').setFault({ name: 'no_response' });
    const upstream = createHttpUpstream({ clock: systemClock, readSecret: () => undefined });
    const deployment = deploymentSchema.parse({
      id: 'a',
      model: 'sim-model',
      base_url: fleet.byId('a').baseUrl,
      context_window: 32_768,
    });
    const started = performance.now();
    const opened = upstream.open({
      deployment,
      path: '/chat/completions',
      body: JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      signal: createCancelController().signal,
      limits: { ...LIMITS, deadlineAt: systemClock.now() + 10_000 },
      requestId: 'precision',
    });
    await expect(opened).rejects.toMatchObject({
      code: 'UPSTREAM_CONNECT_TIMEOUT',
      message: `a: no response headers within ${CONNECT_MS} ms`,
    });
    // a native timer never fires early (5 ms: performance.now() and timers round differently)
    expect(performance.now() - started).toBeGreaterThanOrEqual(CONNECT_MS - 5);
    await upstream.close();
  });

  it('fails over from an upstream that sends no headers within connect_ms', async () => {
    stack = await startFaultStack({
      backends: ['a', 'b'].map((id) => ({ id, models: ['sim-model'] })),
      table: (urls) =>
        simpleTable({
          urls,
          group: ['a', 'b'],
          timeouts: { connect_ms: CONNECT_MS, ttft_ms: 5000, idle_ms: 1000, total_ms: 10_000 },
        }),
    });
    stack.sim('a').setFault({ name: 'no_response' });
    const call = await callChat(stack.url, 'non-stream');
    expect(call).toMatchObject({ status: 200, deployment: 'b', attempts: 2 });
    expect(call.elapsedMs).toBeGreaterThanOrEqual(CONNECT_MS - 5);
  });
});
