import { parseArgs } from 'node:util';
import { createSimulatedFleet } from './create-simulated-fleet.js';
import { DEMO_FLEET, type DemoBackendOptions } from './demo-fleet.js';
import { loadFleetFile } from './load-fleet-file.js';

/** First port of the fleet; backends take consecutive ports. @default 8101 */
const DEFAULT_BASE_PORT = 8101;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { 'base-port': { type: 'string' } },
    allowPositionals: true,
  });
  const basePort = values['base-port'] === undefined ? DEFAULT_BASE_PORT : Number(values['base-port']);
  if (!Number.isInteger(basePort) || basePort <= 0) throw new Error(`--base-port must be a port number`);
  const file = positionals[0];
  const specs: readonly DemoBackendOptions[] = file === undefined ? DEMO_FLEET : await loadFleetFile(file);
  const fleet = await createSimulatedFleet({
    backends: specs.map((spec, index) => ({ ...spec, port: basePort + index })),
  });
  for (const backend of fleet.backends) {
    // eslint-disable-next-line no-console
    console.log(`${backend.id}\t${backend.baseUrl}`);
  }
  const stop = (): void => {
    void fleet.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
