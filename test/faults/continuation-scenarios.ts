import {
  after,
  AT_ONCE,
  SUITE_COOLDOWN_MS,
  SUITE_TIMEOUTS,
  type FaultScenario,
  type Step,
} from './fault-scenario.js';
import type { FaultSpec } from '../../sim/index.js';

const { idle_ms } = SUITE_TIMEOUTS;

/** After the break: `a` recovers and, its cooldown over, answers the same prompt uninterrupted. */
const SAME_AS_UNINTERRUPTED: Step = {
  clear: ['a'],
  advanceMs: SUITE_COOLDOWN_MS + 100,
  expect: { view: 'complete', from: 'a', attempts: 1 },
  sameTextAsFirst: true,
  within: AT_ONCE,
};

/** A break of `a` after 3 tokens, continued by `b`: one whole answer, word for word the uninterrupted one. */
function continued(name: string, fault: FaultSpec, within: FaultScenario['within']): FaultScenario {
  return {
    name: `${name}: continued on b, one whole answer identical to an uninterrupted one`,
    continuation: ['a', 'b'],
    faults: { a: fault },
    first: (mode) => ({
      view: 'complete',
      from: 'a',
      continuedBy: 'b',
      ...(mode === 'stream' ? {} : { attempts: 2 }),
    }),
    within,
    calls: { a: 1, b: 1 },
    then: [SAME_AS_UNINTERRUPTED],
  };
}

/**
 * Breaks after the first content token with a continuation-capable deployment (`continuation: true`)
 * in reach: the answer goes on from there, streaming or not. Without one, or when it refuses or fails,
 * a stream ends as before with the in-band error of the original break (never the continuation's).
 */
export const CONTINUATION_SCENARIOS: readonly FaultScenario[] = [
  continued('stream cut after 3 tokens', { name: 'cut_mid_stream', params: { after: 3 } }, AT_ONCE),
  continued('stall after 3 tokens', { name: 'stall_mid_stream', params: { after: 3 } }, after(idle_ms)),
  continued('malformed chunk after 3 tokens', { name: 'malformed_chunk', params: { after: 3 } }, AT_ONCE),
  {
    name: "cut with an incapable fallback (continuation: false): a stream ends with the in-band upstream_stream_cut; a non-stream client gets b's own answer",
    continuation: ['a'],
    faults: { a: { name: 'cut_mid_stream', params: { after: 3 } } },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'upstream_stream_cut' }
        : { view: 'complete', from: 'b', attempts: 2 },
    within: AT_ONCE,
    calls: (mode) => ({ a: 1, b: mode === 'stream' ? 0 : 1 }),
  },
  {
    name: 'cut, and the continuation is refused (400 for the prefill): the in-band error names the cut, never the 400',
    backends: [
      { id: 'a', models: ['sim-model'] },
      { id: 'b', models: ['sim-model'], continuation: false },
    ],
    continuation: ['a', 'b'],
    faults: { a: { name: 'cut_mid_stream', params: { after: 3 } } },
    first: (mode) =>
      mode === 'stream'
        ? { view: 'in_band_error', from: 'a', code: 'upstream_stream_cut' }
        : { view: 'complete', from: 'b', attempts: 3 },
    within: AT_ONCE,
    calls: (mode) => ({ a: 1, b: mode === 'stream' ? 1 : 2 }),
  },
  {
    name: 'cut, and the continuation fails too (503): the in-band error names the original cut',
    modes: ['stream'],
    continuation: ['a', 'b'],
    faults: { a: { name: 'cut_mid_stream', params: { after: 3 } }, b: { name: 'error_503' } },
    first: { view: 'in_band_error', from: 'a', code: 'upstream_stream_cut' },
    within: AT_ONCE,
    calls: { a: 1, b: 1 },
  },
];
