import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { connectOutcome, contentChunks, startChat, toEvents } from '../helpers/drain-client.js';
import { spawnAutotier, type SpawnedAutotier } from '../helpers/spawn-autotier.js';
import { simpleTable } from '../helpers/start-stack.js';

/** Tokens of the stream in flight at SIGTERM: 6 s at 10 tokens a second, long beside a drain's first steps. */
const TOKENS = 60;

/**
 * A rolling restart of the real process: SIGTERM in the middle of a slow stream. The stream
 * still ends with [DONE], a new connection is refused while it runs, and the process exits 0; the same
 * with `--workers 2`, where the primary forwards SIGTERM to both workers. Each step waits for an
 * observed event (the first chunk, the workers' start-up lines, a refused connection).
 */
describe('SIGTERM drains the real process', () => {
  let fleet: SimFleet;
  let folder: string;
  let tablePath: string;
  let instance: SpawnedAutotier | undefined;

  beforeAll(async () => {
    fleet = await createSimulatedFleet({
      backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 10 } }],
    });
    folder = await mkdtemp(join(tmpdir(), 'autotier-drain-'));
    tablePath = join(folder, 'table.yaml');
    const table = {
      ...simpleTable({
        urls: { a: fleet.byId('a').baseUrl },
        group: ['a'],
        timeouts: { connect_ms: 2000, ttft_ms: 20_000, idle_ms: 10_000, total_ms: 60_000 },
      }),
      classifier: { mode: 'local' },
    };
    await writeFile(tablePath, stringify(table));
  });

  afterEach(async () => {
    await instance?.stop();
    instance = undefined;
  });

  afterAll(async () => {
    await fleet?.close();
    await rm(folder, { recursive: true, force: true });
  });

  for (const workers of [1, 2]) {
    it(`finishes the stream in flight, refuses new connections and exits 0 (${workers === 1 ? 'one process' : '--workers 2'})`, async () => {
      const spawned = await spawnAutotier({
        table: tablePath,
        args: workers > 1 ? ['--workers', String(workers)] : [],
        env: { AUTOTIER_LOG_LEVEL: 'info', AUTOTIER_SHUTDOWN_GRACE_MS: '30000' },
      });
      instance = spawned;
      // every worker listens (and has its signal handlers) before the signal
      const listening = (): number => spawned.output().split('autotier listening').length - 1;
      await expect.poll(listening, { timeout: 60_000, interval: 100 }).toBe(workers);
      const exited = new Promise<number | null>((resolve) => spawned.process.once('exit', resolve));

      const stream = startChat(spawned.url, { stream: true, maxTokens: TOKENS });
      let streamEnded = false;
      const markEnded = (): void => {
        streamEnded = true;
      };
      stream.answer.then(markEnded, markEnded);
      await stream.firstBytes;
      const signalledAt = performance.now();
      spawned.process.kill('SIGTERM');

      await expect.poll(() => connectOutcome(spawned.url), { timeout: 10_000, interval: 50 }).toBe('refused');
      expect(streamEnded).toBe(false); // refused while the stream was still running: a drain, not an exit
      const answer = await stream.answer;
      expect(answer.status).toBe(200);
      const events = toEvents(answer.text);
      expect(events.at(-1), spawned.output()).toBe('[DONE]');
      expect(contentChunks(events)).toBe(TOKENS);
      expect(await exited, spawned.output()).toBe(0);
      expect(spawned.output()).toContain('drained');
      console.info(
        `workers=${workers}: SIGTERM to exit ${Math.round(performance.now() - signalledAt)} ms (stream of ${TOKENS} tokens at 10/s)`,
      );
    }, 120_000);
  }
});
