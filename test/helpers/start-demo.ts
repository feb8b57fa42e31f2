import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAutotier } from '../../src/main.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { createSimulatedFleet } from '../../sim/create-simulated-fleet.js';
import { DEMO_FLEET } from '../../sim/demo-fleet.js';

/** The demo's first fleet port; routing-tables/default.yaml names 8101, 8102, ... in DEMO_FLEET's order. */
const DEMO_BASE_PORT = 8101;

export interface DemoStack {
  /** autotier's base URL, without `/v1`. */
  url: string;
  logger: ReturnType<typeof createRecordingLogger>;
  close(): Promise<void>;
}

/**
 * What `npm run demo` runs, on free ports: the demo fleet and autotier with routing-tables/default.yaml
 * (its own classifier, keys and limits), the fleet's fixed ports rewritten to the ones it got.
 */
export async function startDemo(): Promise<DemoStack> {
  const fleet = await createSimulatedFleet({ backends: DEMO_FLEET.map((spec) => ({ ...spec })) });
  const text = readFileSync('routing-tables/default.yaml', 'utf8').replace(
    /127\.0\.0\.1:(81\d\d)\b/g,
    (whole, port: string) => {
      const backend = fleet.backends[Number(port) - DEMO_BASE_PORT];
      if (backend === undefined) throw new Error(`default.yaml names ${whole}, which the demo fleet lacks`);
      return new URL(backend.baseUrl).host;
    },
  );
  const folder = mkdtempSync(join(tmpdir(), 'autotier-demo-'));
  const tablePath = join(folder, 'default.yaml');
  writeFileSync(tablePath, text);
  const logger = createRecordingLogger();
  const running = await startAutotier({
    argv: ['--table', tablePath],
    env: { AUTOTIER_HOST: '127.0.0.1', AUTOTIER_PORT: '0' },
    logger,
  });
  return {
    url: running.url,
    logger,
    async close() {
      await running.close();
      await fleet.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
