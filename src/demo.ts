import { createSimulatedFleet } from '../sim/create-simulated-fleet.js';
import { DEMO_FLEET } from '../sim/demo-fleet.js';
import { startAutotier } from './main.js';

/** First port of the simulated fleet; routing-tables/default.yaml points at 8101-8107. */
const FLEET_BASE_PORT = 8101;

/**
 * The embedded default: a simulated fleet on 127.0.0.1:8101-8107 and autotier in front of it on
 * AUTOTIER_PORT (default 4000), so a newcomer gets real answers with the routing visible in headers.
 */
async function main(): Promise<void> {
  const fleet = await createSimulatedFleet({
    backends: DEMO_FLEET.map((spec, index) => ({ ...spec, port: FLEET_BASE_PORT + index })),
  });
  const running = await startAutotier({
    argv: process.argv.slice(2),
    env: { AUTOTIER_HOST: '127.0.0.1', ...process.env },
  });
  process.stdout.write(
    `\nautotier demo: ${running.url}\n  curl -s ${running.url}/v1/chat/completions -H 'content-type: application/json' \\\n    -d '{"model":"auto","messages":[{"role":"user","content":"Prove that sqrt(2) is irrational."}]}' -D - \n\n`,
  );
  const stop = (): void => {
    void running
      .close()
      .then(() => fleet.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `autotier demo failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
