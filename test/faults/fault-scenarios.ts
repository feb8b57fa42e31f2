import { AFTER_CONTENT_SCENARIOS } from './after-content-scenarios.js';
import { BEFORE_CONTENT_SCENARIOS } from './before-content-scenarios.js';
import { CONTINUATION_SCENARIOS } from './continuation-scenarios.js';
import type { FaultScenario } from './fault-scenario.js';
import { FLEET_SCENARIOS } from './fleet-scenarios.js';

/**
 * The fault conformance table: every upstream fault the simulator injects, run through the real HTTP API
 * against the simulator, for streaming and non-streaming clients. Default fleet: group [a, b] tried in
 * that order, no fallback, the suite's timeouts (connect 300, ttft 1200, idle 900, total 4000 ms) and a
 * 2000 ms cooldown. `calls` are cumulative upstream calls counted by the simulator.
 */
export const FAULT_TABLES: readonly { title: string; scenarios: readonly FaultScenario[] }[] = [
  { title: 'before the first content token', scenarios: BEFORE_CONTENT_SCENARIOS },
  { title: 'after the first content token', scenarios: AFTER_CONTENT_SCENARIOS },
  { title: 'continuation of a broken answer', scenarios: CONTINUATION_SCENARIOS },
  { title: 'fleet state: cooldowns, probes, fallbacks, deadlines', scenarios: FLEET_SCENARIOS },
];
