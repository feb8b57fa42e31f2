import { describe, expect, it } from 'vitest';
import { routingTableSchema } from '../config/routing-table-schema.js';
import { createCancelController } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import { createRecordingLogger } from '../shared/logger.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import { createManualTime } from '../../test/helpers/manual-time.js';
import { createScriptedUpstream, type Outcome } from '../../test/helpers/scripted-upstream.js';
import { deployment, plan } from '../../test/helpers/balance-fixtures.js';
import type { ExecuteRequest } from './balancer.js';
import { createBalancer } from './create-balancer.js';

const CRASH: Outcome = { kind: 'status', status: 500 };
const ANSWER: Outcome = { kind: 'answer', ttftMs: 5 };
const RETRY = { max_attempts: 4, backoff_base_ms: 50, backoff_max_ms: 200, retry_after_cap_ms: 3000 };

/** A balancer over group a, b and fallback c, with request contents given per call. */
function setup(scripts: Record<string, Outcome[]>) {
  const time = createManualTime();
  const upstream = createScriptedUpstream(time, scripts);
  const benched: string[] = [];
  const ids = ['a', 'b', 'c'];
  const table = routingTableSchema.parse({
    deployments: ids.map((id) => ({
      id,
      model: 'sim-model',
      base_url: `http://${id}.invalid/v1`,
      context_window: 32_768,
    })),
    tiers: Object.fromEntries(
      ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'].map((tier) => [
        tier,
        { group: ['a', 'b'], fallback: ['c'] },
      ]),
    ),
    balancer: { cooldown_ms: 2000, retry: RETRY },
  });
  const balancer = createBalancer({
    upstream,
    store: createMemoryStateStore({ clock: time.clock }),
    clock: time.clock,
    random: () => 0,
    sleep: time.sleep,
    logger: createRecordingLogger(),
    table: () => table,
    onCooldown: (id, reason) => benched.push(`${id}: ${reason}`),
  });
  const request = (content: string): ExecuteRequest => ({
    plan: plan([deployment('a'), deployment('b')], [deployment('c')]),
    path: '/chat/completions',
    toBody: (target) => JSON.stringify({ model: target.model, content }),
    signal: createCancelController().signal,
    requestId: content,
    commit: 'complete',
    startedAt: time.clock.now(),
    promptTokens: 10,
  });
  /** `OK <deployment>` or the error code one request ends with. */
  const send = (content: string): Promise<string> =>
    time.runUntil(balancer.execute(request(content))).then(
      (result) => `OK ${result.deployment.id}`,
      (error: unknown) => (error instanceof RouterError ? error.code : String(error)),
    );
  return { upstream, benched, send };
}

describe('createBalancer: 5xx that follow the request content', () => {
  it('benches a deployment whose 500 the next deployment does not reproduce', async () => {
    const { send, benched } = setup({ a: [CRASH], b: [ANSWER] });
    expect(await send('fine')).toBe('OK b');
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
  });

  it('stops after two deployments answer the same request 500, and benches neither', async () => {
    const { send, benched, upstream } = setup({ a: [CRASH, ANSWER], b: [CRASH], c: [ANSWER] });
    expect(await send('poison')).toBe('UPSTREAM_SERVER_ERROR');
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a', 'b']);
    expect(benched).toEqual([]);
    expect(await send('other')).toBe('OK a');
  });

  it('calls a deployment once for a content that failed on two before, and benches nothing', async () => {
    const { send, benched, upstream } = setup({ a: [CRASH], b: [CRASH] });
    await send('poison');
    expect(await send('poison')).toBe('UPSTREAM_SERVER_ERROR');
    expect(upstream.calls).toHaveLength(3);
    expect(benched).toEqual([]);
  });

  it('benches deployments where three different contents fail with no success between (an outage)', async () => {
    const { send, benched } = setup({ a: [CRASH], b: [CRASH], c: [CRASH] });
    for (const content of ['one', 'two']) expect(await send(content)).toBe('UPSTREAM_SERVER_ERROR');
    expect(benched).toEqual([]);
    await send('three');
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR', 'b: UPSTREAM_SERVER_ERROR']);
  });

  it('benches on a 503 at once, as before: unavailable speaks for the server', async () => {
    const { send, benched } = setup({ a: [{ kind: 'status', status: 503 }], b: [ANSWER] });
    expect(await send('fine')).toBe('OK b');
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
  });
});
