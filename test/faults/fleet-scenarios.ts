import {
  after,
  AT_ONCE,
  backInService,
  MARGIN_MS,
  sims,
  SUITE_TIMEOUTS,
  type FaultScenario,
} from './fault-scenario.js';

const { ttft_ms } = SUITE_TIMEOUTS;
/** Background probes of the probe scenario, ms: slots of 200, 400, 800, then 1000. */
const PROBES = { first_interval_ms: 200, max_interval_ms: 1000, timeout_ms: 500 };

/**
 * What faults do to the fleet's state and to later requests: cooldowns and probes, flapping, recovery,
 * fallback chains, every deployment down, max_attempts and the total deadline.
 */
export const FLEET_SCENARIOS: readonly FaultScenario[] = [
  {
    name: 'flapping primary: benched after its first failure, then left out for the whole cooldown instead of oscillating per request',
    faults: { a: { name: 'flapping', params: { period: 1 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      { repeat: 9, expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } },
    ],
  },
  {
    name: 'flapping primary with health probes: its /health answers all along, so no probe lets it back before its cooldown ends',
    healthProbes: PROBES,
    cooldownMs: 30_000,
    faults: { a: { name: 'flapping', params: { period: 1 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      // a second of healthy probes (slots of 200 ms): none of them ends the 30 s cooldown
      {
        waitMs: 1000,
        repeat: 5,
        expect: { view: 'complete', from: 'b', attempts: 1 },
        within: AT_ONCE,
        calls: { a: 1 },
      },
    ],
  },
  {
    name: 'flapping primary with a short cooldown: one failover per cooldown at most (cooldown and probe), every client answered',
    cooldownMs: 300,
    faults: { a: { name: 'flapping', params: { period: 1 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    // Per-request oscillation would make every second request fail over: 8 of these 16.
    then: [{ repeat: 16, everyMs: 50, expect: { view: 'complete' }, oneFailoverPerCooldown: true }],
  },
  {
    name: 'every deployment failing, fallback included: 503 at once; then 503 at once after one call (panic) while all cool down; /ready 503',
    backends: sims('a', 'b', 'c'),
    fallback: ['c'],
    faults: {
      a: { name: 'error_503' },
      b: { name: 'reset_before_headers' },
      c: { name: 'error_503' },
    },
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    within: AT_ONCE,
    // b, the last of the group, is retried in place before the weaker c; that makes max_attempts (4)
    calls: { a: 1, b: 2, c: 1 },
    then: [
      {
        ready: 503,
        expect: { view: 'error', status: 503, code: 'all_deployments_failed' },
        within: AT_ONCE,
        // all cooling down: the one whose cooldown ends first (a, benched first) is still called once
        calls: { a: 2, b: 2, c: 1 },
      },
    ],
  },
  {
    name: 'every deployment down (connection refused): 503 at once, not after summed timeouts',
    backends: sims('a', 'b', 'c'),
    fallback: ['c'],
    closed: ['a', 'b', 'c'],
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    within: AT_ONCE,
    calls: {},
    then: [{ ready: 503 }],
  },
  {
    name: 'more failing deployments than max_attempts: exactly max_attempts (4) calls, then 503',
    backends: sims('a', 'b', 'c', 'd', 'e'),
    group: ['a', 'b', 'c'],
    fallback: ['d', 'e'],
    faults: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((id) => [id, { name: 'error_503' }])),
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    within: AT_ONCE,
    // c would be retried in place before the weaker d, but the last attempt goes to an untried one
    calls: { a: 1, b: 1, c: 1, d: 1, e: 0 },
  },
  {
    // total_ms stays under 1 s here: undici times response headers with a coarse clock above 1 s
    // (see connect-timeout-precision.test.ts).
    name: 'silent upstreams with connect and ttft above total_ms: 504 deadline_exceeded at total_ms, no call after the deadline',
    backends: sims('a', 'b', 'c'),
    fallback: ['c'],
    timeouts: { connect_ms: 10_000, ttft_ms: 10_000, total_ms: 900 },
    faults: Object.fromEntries(['a', 'b', 'c'].map((id) => [id, { name: 'no_response' }])),
    first: { view: 'error', status: 504, code: 'deadline_exceeded' },
    within: after(900),
    // a first; b and c only if connect_ms gave up on a before the deadline.
    calls: { a: 1, b: { max: 1 }, c: { max: 1 } },
    then: [{ waitMs: 300, noCalls: true }],
  },
  {
    name: 'a fallback answering 429 without Retry-After: benched like any deployment with alternatives, 503 at once, not retried',
    backends: sims('a', 'c'),
    group: ['a'],
    fallback: ['c'],
    faults: { a: { name: 'error_503' }, c: { name: 'rate_limit_no_retry_after' } },
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    within: AT_ONCE,
    // a's 503 is retried in place once (c is weaker); c's 429 without Retry-After is not
    calls: { a: 2, c: 1 },
    then: [{ waitMs: 100, noCalls: true }],
  },
  {
    name: 'the whole group failing before content: the fallback answers',
    backends: sims('a', 'b', 'c'),
    fallback: ['c'],
    faults: { a: { name: 'error_503' }, b: { name: 'reset_before_headers' } },
    // a fails over to its peer b; b's reset, with no peer left, is retried in place once before c
    first: { view: 'complete', from: 'c', attempts: 4, fallbacks: 1 },
    within: AT_ONCE,
    calls: { a: 1, b: 2, c: 1 },
  },
  {
    name: 'a fallback that also fails before content: a clean 503 JSON error after its ttft_ms, never a half-sent 200',
    backends: sims('a', 'c'),
    group: ['a'],
    fallback: ['c'],
    faults: { a: { name: 'error_503' }, c: { name: 'headers_then_nothing' } },
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    // a's 503 is retried in place once (at most jitter_ms, 250 ms, inside the margin) before c
    within: after(ttft_ms),
    calls: { a: 2, c: 1 },
  },
  {
    name: 'recovery: after the fault clears, traffic returns after cooldown_ms with one probe',
    // cooldowns here are long and lapse by advancing the app's clock: a loaded machine cannot let one
    // lapse before the steps that must still see it
    cooldownMs: 30_000,
    faults: { a: { name: 'error_503' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      {
        clear: ['a'],
        expect: { view: 'complete', from: 'b', attempts: 1 },
        within: AT_ONCE,
        calls: { a: 1 },
      },
      {
        advanceMs: 30_000,
        ready: 200,
        expect: { view: 'complete', from: 'a', attempts: 1 },
        calls: { a: 2 },
      },
      { expect: { view: 'complete', from: 'a', attempts: 1 }, calls: { a: 3, b: 2 } },
    ],
  },
  {
    name: 'recovery with health probes: the primary takes traffic again within max_interval_ms of its fault clearing, no user request spent probing',
    // a 30 s cooldown: only a background probe can bring it back within the step's bound
    cooldownMs: 30_000,
    healthProbes: PROBES,
    faults: { a: { name: 'error_503' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      // the outage goes on: the prober finds a down (its /health answers 503), users are sent to b
      // and none of them tries a; by now the probes are max_interval_ms apart
      {
        waitMs: 2000,
        expect: { view: 'complete', from: 'b', attempts: 1 },
        within: AT_ONCE,
        calls: { a: 1 },
      },
      // the next probe finds it healthy: at most one slot, one look-in and the probe's own time
      { clear: ['a'], waitFor: backInService('a', PROBES.max_interval_ms + MARGIN_MS) },
      { expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE, calls: { a: 2, b: 2 } },
    ],
  },
  {
    name: 'recovery after a failed probe: the cooldown doubles, then one probe brings the deployment back',
    cooldownMs: 20_000,
    faults: { a: { name: 'error_503' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      // The probe fails: a is benched again, for 40 s this time.
      { advanceMs: 20_000, expect: { view: 'complete', from: 'b', attempts: 2 }, calls: { a: 2, b: 2 } },
      {
        clear: ['a'],
        advanceMs: 20_000,
        expect: { view: 'complete', from: 'b', attempts: 1 },
        calls: { a: 2 },
      },
      { advanceMs: 20_000, expect: { view: 'complete', from: 'a', attempts: 1 }, calls: { a: 3, b: 3 } },
    ],
  },
];
