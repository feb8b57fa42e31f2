import { beforeAll, describe, it } from 'vitest';
import type { FaultSpec } from '../../sim/index.js';
import { simpleTable } from '../helpers/start-stack.js';
import { callChat, type Mode } from './call-chat.js';
import { FAULT_TABLES } from './fault-scenarios.js';
import { runFaultScenario } from './run-fault-scenario.js';
import { startFaultStack } from './start-fault-stack.js';

const MODES: readonly Mode[] = ['stream', 'non-stream'];

/**
 * The first requests of a process pay for lazy loading and cold code paths (a few hundred ms on a busy
 * machine), which would skew the first scenarios' timings: run the common paths once beforehand.
 */
async function warmUp(): Promise<void> {
  const stack = await startFaultStack({
    backends: ['a', 'b'].map((id) => ({ id, models: ['sim-model'] })),
    table: (urls) => simpleTable({ urls, group: ['a', 'b'], cooldownMs: 0 }),
  });
  const faults: (FaultSpec | null)[] = [null, { name: 'error_503' }, { name: 'cut_mid_stream' }];
  for (const fault of faults) {
    stack.sim('a').setFault(fault);
    for (const mode of MODES) await callChat(stack.url, mode);
  }
  await stack.close();
}

/** Each scenario gets its own simulated fleet and app, so they run side by side. */
describe.concurrent('fault conformance: upstream faults through the real HTTP API', () => {
  beforeAll(warmUp);
  for (const { title, scenarios } of FAULT_TABLES) {
    describe(title, () => {
      for (const scenario of scenarios) {
        for (const mode of scenario.modes ?? MODES) {
          it(`${scenario.name} (${mode})`, ({ expect }) => runFaultScenario(scenario, mode, expect));
        }
      }
    });
  }
});
