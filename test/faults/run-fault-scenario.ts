import type { ExpectStatic } from 'vitest';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { simpleTable } from '../helpers/start-stack.js';
import { callChat, type ChatCall, type Mode } from './call-chat.js';
import {
  byMode,
  MARGIN_MS,
  sims,
  SUITE_COOLDOWN_MS,
  SUITE_TIMEOUTS,
  type Calls,
  type Expected,
  type FaultScenario,
  type Step,
  type WaitFor,
  type Window,
} from './fault-scenario.js';
import { startFaultStack, type FaultStack } from './start-fault-stack.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a scenario looks for an upstream call it waits on, ms. */
const CALL_POLL_MS = 5;

/** Resolves once `id` has received a call, or never when `over()` turns true first. */
async function whenCalled(stack: FaultStack, id: string, over: () => boolean): Promise<boolean> {
  while (stack.sim(id).stats().chatRequests === 0) {
    if (over()) return false;
    await sleep(CALL_POLL_MS);
  }
  return true;
}

/** Timers may fire a little before performance.now() says the delay is over, in ms. */
const TIMER_SLACK_MS = 5;

interface Run {
  scenario: FaultScenario;
  mode: Mode;
  stack: FaultStack;
  expect: ExpectStatic;
  totalMs: number;
  /** The first request's answer text, for `sameTextAsFirst`. */
  firstText: string;
}

function toTableInput(scenario: FaultScenario, urls: Record<string, string>): RoutingTableInput {
  const base = simpleTable({
    urls,
    group: scenario.group ?? ['a', 'b'],
    fallback: scenario.fallback ?? [],
    timeouts: { ...SUITE_TIMEOUTS, ...scenario.timeouts },
    cooldownMs: scenario.cooldownMs ?? SUITE_COOLDOWN_MS,
  });
  const deployments = base.deployments.map((deployment) => ({
    ...deployment,
    context_window: scenario.windows?.[deployment.id] ?? deployment.context_window,
    continuation: scenario.continuation?.includes(deployment.id) ?? false,
  }));
  const balancer = { ...base.balancer, health_probes: scenario.healthProbes ?? { enabled: false } };
  return { ...base, deployments, balancer };
}

function toExpectedFields(expected: Expected): Partial<ChatCall> {
  switch (expected.view) {
    case 'complete':
      return {
        status: 200,
        view: 'complete',
        ...(expected.from === undefined ? {} : { deployment: expected.from }),
        ...(expected.attempts === undefined ? {} : { attempts: expected.attempts }),
        ...(expected.fallbacks === undefined ? {} : { fallbacks: expected.fallbacks }),
        continuedBy: expected.continuedBy ?? null,
      };
    case 'in_band_error':
      return { status: 200, view: 'in_band_error', code: expected.code, deployment: expected.from };
    case 'error':
      return {
        status: expected.status,
        view: 'error',
        code: expected.code,
        ...(expected.retryAfter === undefined ? {} : { retryAfter: expected.retryAfter }),
      };
    case 'aborted':
      return { view: 'aborted' };
  }
}

function checkCall(run: Run, call: ChatCall, expected: Expected, within: Window): void {
  const { expect } = run;
  expect(call, call.detail).toMatchObject(toExpectedFields(expected));
  expect(call.elapsedMs, 'elapsed ms').toBeGreaterThanOrEqual(within[0] - TIMER_SLACK_MS);
  expect(call.elapsedMs, 'elapsed ms').toBeLessThanOrEqual(within[1]);
  expect(call.elapsedMs, 'elapsed ms: no hang past total_ms').toBeLessThanOrEqual(run.totalMs + MARGIN_MS);
}

function checkCalls(run: Run, calls: Calls): void {
  for (const [id, count] of Object.entries(calls)) {
    const actual = run.stack.sim(id).stats().chatRequests;
    if (typeof count === 'number') run.expect(actual, `calls to ${id}`).toBe(count);
    else run.expect(actual, `calls to ${id}`).toBeLessThanOrEqual(count.max);
  }
}

function clearFaults(stack: FaultStack, ids: readonly string[]): void {
  for (const id of ids) stack.sim(id).setFault(null);
}

const totalCalls = (stack: FaultStack): number =>
  stack.ids.reduce((sum, id) => sum + stack.sim(id).stats().chatRequests, 0);

/** How often a step looks at the condition it waits for, ms. */
const WAIT_POLL_MS = 20;

async function waitFor(run: Run, wait: WaitFor): Promise<void> {
  const started = performance.now();
  while (!(await wait.done(run.stack))) {
    const elapsed = performance.now() - started;
    run.expect(elapsed, `${wait.what}: ms waited`).toBeLessThanOrEqual(wait.withinMs);
    await sleep(WAIT_POLL_MS);
  }
}

async function runStep(run: Run, step: Step): Promise<void> {
  const callsBefore = totalCalls(run.stack);
  clearFaults(run.stack, step.clear ?? []);
  if (step.waitMs !== undefined) await sleep(step.waitMs);
  if (step.advanceMs !== undefined) run.stack.clock.advance(step.advanceMs);
  if (step.waitFor !== undefined) await waitFor(run, step.waitFor);
  if (step.ready !== undefined)
    run.expect((await fetch(`${run.stack.url}/ready`)).status, '/ready').toBe(step.ready);
  if (step.expect !== undefined) await runRequests(run, step, step.expect);
  if (step.calls !== undefined) checkCalls(run, step.calls);
  if (step.noCalls === true) run.expect(totalCalls(run.stack), 'upstream calls').toBe(callsBefore);
}

async function runRequests(run: Run, step: Step, expected: Expected): Promise<void> {
  const started = performance.now();
  let failovers = 0;
  for (let index = 0; index < (step.repeat ?? 1); index += 1) {
    if (step.everyMs !== undefined) await sleep(step.everyMs);
    const call = await callChat(run.stack.url, run.mode);
    checkCall(run, call, expected, step.within ?? [0, run.totalMs + MARGIN_MS]);
    if (step.sameTextAsFirst === true) run.expect(call.text, 'the same answer text').toBe(run.firstText);
    if ((call.attempts ?? 0) > 1) failovers += 1;
  }
  if (step.oneFailoverPerCooldown === true) {
    const cooldowns = (performance.now() - started) / (run.scenario.cooldownMs ?? SUITE_COOLDOWN_MS);
    run.expect(failovers, 'requests that needed a failover').toBeLessThanOrEqual(Math.ceil(cooldowns) + 1);
  }
}

/** Nothing left behind: no request in flight at any backend, no in-flight count in the store. */
async function checkSettled(run: Run): Promise<void> {
  const { stack, expect } = run;
  const inFlight = (): number => stack.ids.reduce((sum, id) => sum + stack.sim(id).stats().inFlight, 0);
  await expect.poll(inFlight, { timeout: 2000, interval: 20 }).toBe(0);
  expect([...(await stack.store.getInFlight(stack.ids))], 'in-flight counts in the store').toEqual([]);
}

/** The first request, with its `during` and `abortOnCall` tied to the upstream call they wait on. */
async function callFirst(run: Run): Promise<ChatCall> {
  const { scenario, stack } = run;
  let over = false;
  const { during, abortOnCall } = scenario;
  if (during !== undefined)
    void whenCalled(stack, during.onCall, () => over).then(
      (called) => called && clearFaults(stack, during.clear),
    );
  const abortWhen =
    abortOnCall &&
    whenCalled(stack, abortOnCall.backend, () => over).then(async (called) => {
      if (called) await sleep(abortOnCall.afterMs ?? 0);
      else await new Promise(() => undefined);
    });
  try {
    return await callChat(stack.url, run.mode, abortWhen === undefined ? {} : { abortWhen });
  } finally {
    over = true;
  }
}

/** Runs one scenario through the real HTTP API on a stack of its own. */
export async function runFaultScenario(
  scenario: FaultScenario,
  mode: Mode,
  expect: ExpectStatic,
): Promise<void> {
  const stack = await startFaultStack({
    backends: scenario.backends ?? sims('a', 'b'),
    table: (urls) => toTableInput(scenario, urls),
  });
  const run: Run = {
    scenario,
    mode,
    stack,
    expect,
    totalMs: scenario.timeouts?.total_ms ?? SUITE_TIMEOUTS.total_ms,
    firstText: '',
  };
  try {
    await Promise.all((scenario.closed ?? []).map((id) => stack.sim(id).close()));
    for (const [id, fault] of Object.entries(scenario.faults ?? {})) stack.sim(id).setFault(fault);
    const call = await callFirst(run);
    run.firstText = call.text;
    checkCall(run, call, byMode(scenario.first, mode), byMode(scenario.within, mode));
    checkCalls(run, byMode(scenario.calls, mode));
    for (const step of scenario.then ?? []) await runStep(run, step);
    await checkSettled(run);
  } finally {
    await stack.close();
  }
}
