import { afterEach, describe, expect, it } from 'vitest';
import { simpleTable } from '../helpers/start-stack.js';
import { callChat } from './call-chat.js';
import { startFaultStack, type FaultStack } from './start-fault-stack.js';

/**
 * connect_ms is timed by the attempt watchdog with a native timer, not by undici's `headersTimeout`
 * (its "fast timers" tick every 499 ms, lib/util/timers.js, and were measured 0.5-1 s late). ttft_ms is
 * far above connect_ms here, so only connect_ms can end the attempt. undici's own headersTimeout is set
 * to connect_ms + 1000 as a backstop (create-http-upstream.ts), so a failover before that proves the
 * watchdog fired: the bound leaves a second of slack for a loaded machine instead of 180 ms.
 */
const CONNECT_MS = 300;
/** undici's backstop: `headersTimeout` in create-http-upstream.ts, ms. */
const BACKSTOP_MS = CONNECT_MS + 1000;

describe('connect_ms precision', () => {
  let stack: FaultStack;
  afterEach(() => stack.close());

  it("fails over from an upstream that sends no headers within connect_ms (300 ms), before undici's backstop a second later", async () => {
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
    expect(call.elapsedMs).toBeLessThan(BACKSTOP_MS);
  });
});
