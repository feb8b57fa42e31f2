import { retryInPlaceSchema } from '../../src/config/table-part-schemas.js';
import { after, AT_ONCE, MARGIN_MS, sims, SUITE_TIMEOUTS, type FaultScenario } from './fault-scenario.js';

const { connect_ms, ttft_ms } = SUITE_TIMEOUTS;
/** Longest wait before an in-place retry after a 5xx or a reset (the default `retry_in_place`), ms. */
const { jitter_ms } = retryInPlaceSchema.parse({});
/** At once, but for one jittered wait before an in-place retry. */
const AFTER_JITTER: readonly [number, number] = [0, jitter_ms + MARGIN_MS];

/**
 * Faults before the first content token (the streaming commit point): they fail over invisibly, for
 * streaming and non-streaming clients alike, or end the request at once when retrying cannot help.
 */
export const BEFORE_CONTENT_SCENARIOS: readonly FaultScenario[] = [
  {
    name: '429 with Retry-After: the next deployment answers at once; the limited one sits out exactly the Retry-After',
    cooldownMs: 50_000,
    faults: { a: { name: 'rate_limit', params: { seconds: 20 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      { ready: 200, expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } },
      // Retry-After (20 s) replaces cooldown_ms (50 s here): a is back after 20 s of the app's clock
      // (advanced, not slept: the step before must still see a benched on a loaded machine).
      {
        clear: ['a'],
        advanceMs: 20_000,
        expect: { view: 'complete', from: 'a', attempts: 1 },
        calls: { a: 2 },
      },
    ],
  },
  {
    name: "429 with Retry-After on a group's only deployment: waits it out, then the same deployment answers",
    group: ['a'],
    faults: { a: { name: 'rate_limit', params: { seconds: 1 } } },
    during: { onCall: 'a', clear: ['a'] },
    first: { view: 'complete', from: 'a', attempts: 2 },
    within: after(1000),
    calls: { a: 2, b: 0 },
    then: [{ ready: 200, expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE }],
  },
  {
    name: 'a short Retry-After is honoured on the primary: waits it out, then the primary answers, the weaker fallback gets nothing',
    group: ['a'],
    fallback: ['b'],
    faults: { a: { name: 'rate_limit', params: { seconds: 1 } } },
    during: { onCall: 'a', clear: ['a'] },
    first: { view: 'complete', from: 'a', attempts: 2, fallbacks: 0 },
    within: after(1000),
    calls: { a: 2, b: 0 },
    then: [{ ready: 200, expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE }],
  },
  {
    name: 'a Retry-After beyond retry_after_cap_ms on the primary: the weaker fallback answers at once',
    group: ['a'],
    fallback: ['b'],
    faults: { a: { name: 'rate_limit', params: { seconds: 30 } } },
    first: { view: 'complete', from: 'b', attempts: 2, fallbacks: 1 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
  },
  {
    name: "429 with a Retry-After beyond retry_after_cap_ms on a group's only deployment: 503 at once, Retry-After passed on, not benched",
    group: ['a'],
    faults: { a: { name: 'rate_limit', params: { seconds: 30 } } },
    first: { view: 'error', status: 503, code: 'all_deployments_failed', retryAfter: '30' },
    within: AT_ONCE,
    calls: { a: 1 },
    then: [{ ready: 200 }],
  },
  {
    name: '429 without Retry-After: the next deployment answers at once; the limited one is benched for cooldown_ms',
    faults: { a: { name: 'rate_limit_no_retry_after' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      { ready: 200, expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } },
    ],
  },
  {
    name: "429 without Retry-After on a group's only deployment: retried with backoff up to max_attempts (4), then 503",
    group: ['a'],
    faults: { a: { name: 'rate_limit_no_retry_after' } },
    first: { view: 'error', status: 503, code: 'all_deployments_failed' },
    within: AT_ONCE,
    calls: { a: 4 },
  },
  {
    name: '500 once: the next deployment answers at once; the failed one is benched',
    faults: { a: { name: 'error_500_once' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      { ready: 200, expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } },
    ],
  },
  {
    name: 'one 500 then OK is answered by the primary: retried in place once, the weaker fallback gets nothing, nothing benched',
    group: ['a'],
    fallback: ['b'],
    faults: { a: { name: 'error_500_once' } },
    first: { view: 'complete', from: 'a', attempts: 2, fallbacks: 0 },
    within: AFTER_JITTER,
    calls: { a: 2, b: 0 },
    then: [
      { ready: 200, expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE, calls: { a: 3 } },
    ],
  },
  {
    name: '503 persistent: the next deployment answers at once; the failed one gets no call while benched',
    faults: { a: { name: 'error_503' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [
      {
        ready: 200,
        repeat: 3,
        expect: { view: 'complete', from: 'b', attempts: 1 },
        within: AT_ONCE,
        calls: { a: 1, b: 4 },
      },
    ],
  },
  {
    name: 'TCP reset before headers: the next deployment answers at once; the reset one is benched',
    faults: { a: { name: 'reset_before_headers' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: 'TCP reset before headers with no peer left: the primary is retried once in place, then the weaker fallback answers; the primary is benched',
    group: ['a'],
    fallback: ['b'],
    faults: { a: { name: 'reset_before_headers' } },
    first: { view: 'complete', from: 'b', attempts: 3, fallbacks: 1 },
    within: AFTER_JITTER,
    calls: { a: 2, b: 1 },
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 2 } }],
  },
  {
    // undici times connect_ms with a coarse clock (connect-timeout-precision.test.ts): ttft_ms may come first.
    name: 'silent upstream (no response headers): the next deployment answers after connect_ms, at the latest after ttft_ms',
    faults: { a: { name: 'no_response' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: [connect_ms, ttft_ms + MARGIN_MS],
    calls: { a: 1, b: 1 },
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: 'headers then nothing: the next deployment answers after ttft_ms',
    faults: { a: { name: 'headers_then_nothing' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: after(ttft_ms),
    calls: { a: 1, b: 1 },
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: 'slow first token beyond ttft_ms: the next deployment answers after ttft_ms',
    faults: { a: { name: 'slow_first_token', params: { ms: 1500 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: after(ttft_ms),
    calls: { a: 1, b: 1 },
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: 'slow first token within ttft_ms: the same deployment answers, no failover, nothing benched',
    faults: { a: { name: 'slow_first_token', params: { ms: 250 } } },
    first: { view: 'complete', from: 'a', attempts: 1 },
    within: after(250),
    calls: { a: 1, b: 0 },
    then: [{ clear: ['a'], expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE }],
  },
  {
    name: 'content-free chunks do not count as a first token: a late first token still fails over after ttft_ms',
    backends: [{ id: 'a', models: ['sim-model'], latency: { ttftMs: 1500 } }, ...sims('b')],
    faults: { a: { name: 'empty_chunks' } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: after(ttft_ms),
    calls: { a: 1, b: 1 },
  },
  {
    name: 'malformed chunk before any content: the next deployment answers at once',
    faults: { a: { name: 'malformed_chunk', params: { after: 0 } } },
    first: { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
  },
  {
    name: 'context-length 400: goes to a deployment with a larger window, skips same-size ones, never resends as is, benches nothing',
    backends: sims('small', 'peer', 'big'),
    group: ['small', 'peer', 'big'],
    windows: { small: 16_384, peer: 16_384, big: 65_536 },
    faults: { small: { name: 'context_length' } },
    first: { view: 'complete', from: 'big', attempts: 2 },
    within: AT_ONCE,
    calls: { small: 1, peer: 0, big: 1 },
    then: [{ clear: ['small'], expect: { view: 'complete', from: 'small', attempts: 1 }, within: AT_ONCE }],
  },
  {
    name: 'context-length 400 with no larger window left: 400 upstream_context_length at once, no same-size deployment called',
    faults: { a: { name: 'context_length' } },
    first: { view: 'error', status: 400, code: 'upstream_context_length' },
    within: AT_ONCE,
    calls: { a: 1, b: 0 },
    then: [{ ready: 200 }],
  },
  {
    name: 'request-shaped 400: returned to the client as is, never retried, nothing benched',
    faults: { a: { name: 'bad_request' } },
    first: { view: 'error', status: 400, code: 'upstream_bad_request' },
    within: AT_ONCE,
    calls: { a: 1, b: 0 },
    then: [
      { ready: 200, clear: ['a'], expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE },
    ],
  },
];
