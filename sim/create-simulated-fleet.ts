import { createSimulatedBackend } from './create-simulated-backend.js';
import type { SimBackend, SimBackendOptions } from './types.js';

export interface SimFleet {
  backends: SimBackend[];
  /** The backend with this id; throws for an unknown id so a typo fails the test loudly. */
  byId(id: string): SimBackend;
  close(): Promise<void>;
}

/** Starts every backend in parallel; if one fails to listen, the others are closed and the error rethrown. */
export async function createSimulatedFleet(options: { backends: SimBackendOptions[] }): Promise<SimFleet> {
  const started = await Promise.allSettled(
    options.backends.map((backend) => createSimulatedBackend(backend)),
  );
  const backends = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(backends.map((backend) => backend.close()));
    throw failure.reason instanceof Error ? failure.reason : new Error(String(failure.reason));
  }
  const byIdMap = new Map(backends.map((backend) => [backend.id, backend]));
  return {
    backends,
    byId: (id) => {
      const backend = byIdMap.get(id);
      if (backend === undefined) throw new Error(`No simulated backend with id "${id}"`);
      return backend;
    },
    close: async () => {
      await Promise.all(backends.map((backend) => backend.close()));
    },
  };
}
