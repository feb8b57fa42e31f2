import { after, AT_ONCE, sims, SUITE_TIMEOUTS, type FaultScenario } from './fault-scenario.js';

const { idle_ms } = SUITE_TIMEOUTS;

/**
 * Faults after the first content token: a stream is already committed (200 sent), so it ends with an
 * in-band error and no [DONE]; a non-streaming client, whose answer is still being assembled, gets the
 * next deployment's answer instead.
 */
export const AFTER_CONTENT_SCENARIOS: readonly FaultScenario[] = [
  {
    name: "stream cut mid-answer: a stream ends with an in-band upstream_stream_cut and no [DONE]; a non-stream client gets the next deployment's answer",
    faults: { a: { name: 'cut_mid_stream', params: { after: 3 } } },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'upstream_stream_cut' }
        : { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: (mode) => ({ a: 1, b: mode === 'stream' ? 0 : 1 }),
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: "stall mid-stream: after idle_ms a stream ends with an in-band upstream_idle_timeout and no [DONE]; a non-stream client gets the next deployment's answer",
    faults: { a: { name: 'stall_mid_stream', params: { after: 3 } } },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'upstream_idle_timeout' }
        : { view: 'complete', from: 'b', attempts: 2 },
    within: after(idle_ms),
    calls: (mode) => ({ a: 1, b: mode === 'stream' ? 0 : 1 }),
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: "malformed chunk mid-stream: a stream ends with an in-band upstream_malformed and no [DONE]; a non-stream client gets the next deployment's answer",
    faults: { a: { name: 'malformed_chunk', params: { after: 3 } } },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'upstream_malformed' }
        : { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: (mode) => ({ a: 1, b: mode === 'stream' ? 0 : 1 }),
    then: [{ expect: { view: 'complete', from: 'b', attempts: 1 }, within: AT_ONCE, calls: { a: 1 } }],
  },
  {
    name: 'no [DONE] after a finish_reason: a complete answer from the same deployment, no failover, nothing benched',
    faults: { a: { name: 'no_done' } },
    first: { view: 'complete', from: 'a', attempts: 1 },
    within: AT_ONCE,
    calls: { a: 1, b: 0 },
    then: [{ expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE, calls: { a: 2, b: 0 } }],
  },
  {
    name: 'an answer slower than total_ms: cut at total_ms, a stream by an in-band deadline_exceeded, a non-stream client by a 504',
    backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 5 } }, ...sims('b')],
    timeouts: { total_ms: 1500 },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'deadline_exceeded' }
        : { view: 'error', status: 504, code: 'deadline_exceeded' },
    within: after(1500),
    calls: { a: 1, b: 0 },
  },
  {
    name: 'client gone while waiting for the first token: the upstream call is aborted, nothing benched, no retry',
    faults: { a: { name: 'slow_first_token', params: { ms: 900 } } },
    abortOnCall: { backend: 'a' },
    first: { view: 'aborted' },
    // the client leaves when a has the call, whenever that is on a loaded machine
    within: [0, SUITE_TIMEOUTS.total_ms],
    calls: { a: 1, b: 0 },
    then: [
      { waitMs: 100, ready: 200, calls: { a: 1, b: 0 } },
      { clear: ['a'], expect: { view: 'complete', from: 'a', attempts: 1 }, within: AT_ONCE },
    ],
  },
  {
    name: 'client gone mid-answer: the upstream stream is aborted, nothing benched, no retry',
    backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 20 } }, ...sims('b')],
    abortOnCall: { backend: 'a', afterMs: 300 },
    first: { view: 'aborted' },
    within: [300, SUITE_TIMEOUTS.total_ms],
    calls: { a: 1, b: 0 },
    then: [
      { waitMs: 100, ready: 200, expect: { view: 'complete', from: 'a', attempts: 1 }, calls: { b: 0 } },
    ],
  },
];
