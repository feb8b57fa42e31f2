import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS, type BackendId } from './bench-fleet.js';
import { startChildService, type ChildService } from './child-service.js';
import { findFreePortRange } from './free-port.js';

export interface Simulator {
  service: ChildService;
  /** OpenAI-style base URL of each backend, e.g. `http://127.0.0.1:41000/v1`. */
  baseUrls: Record<BackendId, string>;
}

/** Writes the bench fleet file (JSON is YAML) and runs `sim/cli.ts <fleet> --base-port N`. */
export async function startSimulator(options: { entry: string[]; tempDir: string }): Promise<Simulator> {
  const fleetFile = join(options.tempDir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify({ backends: BACKENDS }, null, 2));
  const basePort = await findFreePortRange(BACKENDS.length);
  const origins = BACKENDS.map((_, index) => `http://127.0.0.1:${basePort + index}`);
  const service = await startChildService({
    name: 'simulator',
    args: [...options.entry, fleetFile, '--base-port', String(basePort)],
    healthUrls: origins.map((origin) => `${origin}/health`),
  });
  const baseUrls = Object.fromEntries(
    BACKENDS.map((backend, index) => [backend.id, `${origins[index] ?? ''}/v1`]),
  ) as Record<BackendId, string>;
  return { service, baseUrls };
}
