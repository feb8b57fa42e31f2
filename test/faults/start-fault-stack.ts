import { buildService } from '../../src/build-service.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { createSimulatedFleet, type SimBackend, type SimBackendOptions } from '../../sim/index.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { createShiftedClock, type ShiftedClock } from '../helpers/shifted-clock.js';
import { sharedTokenCounter, toTable, unreachableClassifier } from '../helpers/start-stack.js';

export interface FaultStackOptions {
  backends: SimBackendOptions[];
  table: (urls: Record<string, string>) => RoutingTableInput;
}

/** The real app on port 0 in front of simulated backends, with its state store in reach of the test. */
export interface FaultStack {
  url: string;
  sim: (id: string) => SimBackend;
  ids: string[];
  store: StateStore;
  /** The app's clock: real time, moved ahead by `advance` to jump over cooldowns. */
  clock: ShiftedClock;
  close(): Promise<void>;
}

/**
 * Like `startStack`, but the state store is the test's, so a scenario can check that in-flight counts
 * return to zero; `random() = 0` keeps each group in its configured order (first listed, first tried).
 */
export async function startFaultStack(options: FaultStackOptions): Promise<FaultStack> {
  const fleet = await createSimulatedFleet({ backends: options.backends });
  const urls = Object.fromEntries(fleet.backends.map((backend) => [backend.id, backend.baseUrl]));
  const clock = createShiftedClock();
  const store = createMemoryStateStore({ clock });
  const service = buildService({
    table: toTable(options.table(urls)),
    logger: createRecordingLogger(),
    tokenCounter: sharedTokenCounter(),
    createClassifier: unreachableClassifier,
    random: () => 0,
    store,
    clock,
  });
  const { url } = await service.listen(0);
  return {
    url,
    sim: (id) => fleet.byId(id),
    ids: fleet.backends.map((backend) => backend.id),
    store,
    clock,
    async close() {
      await service.close();
      await fleet.close();
    },
  };
}
