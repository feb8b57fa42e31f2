import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAutotierProcess } from './autotier-process.js';
import type { LoadRunner } from './load.js';
import type { NamedTarget } from './routes.js';
import { summarizeProfiles, type ProfileSummary } from './summarize-profile.js';

export interface ProfileOptions {
  entry: string[];
  tableFile: string;
  projectRoot: string;
  runner: LoadRunner;
  /** Route builder for the profiled process's base URL: `auto` and `tier:SIMPLE` JSON, paced streams. */
  targetsFor: (autotierBaseUrl: string) => { auto: NamedTarget; simple: NamedTarget; stream: NamedTarget };
  /** Requests per second of the JSON phases. */
  rate: number;
  durationSeconds: number;
  streams: number;
  tempDir: string;
}

/**
 * Runs a separate autotier process under `--cpu-prof` (profiling slows it, so it is not the one
 * measured), drives it with `auto` JSON requests, `tier:SIMPLE` JSON requests and a burst of paced
 * streams, stops it (the profile is written on a clean exit) and sums self time per function.
 */
export async function profileAutotier(options: ProfileOptions): Promise<ProfileSummary & { folder: string }> {
  const folder = join(options.tempDir, 'cpu-profile');
  mkdirSync(folder, { recursive: true });
  const autotier = await startAutotierProcess({
    entry: options.entry,
    tableFile: options.tableFile,
    projectRoot: options.projectRoot,
    cpuProfileDir: folder,
  });
  // Only samples taken once the load starts count: module loading and start-up are not hot spots.
  const loadStartedUs = Number(process.hrtime.bigint() / 1000n);
  try {
    const targets = options.targetsFor(autotier.baseUrl);
    for (const target of [targets.auto, targets.simple])
      await options.runner.rate({ ...target, rate: options.rate, durationSeconds: options.durationSeconds });
    await options.runner.stream({ ...targets.stream, streams: options.streams });
  } finally {
    await autotier.service.close();
  }
  const summary = summarizeProfiles({
    paths: [folder],
    top: 15,
    projectRoot: options.projectRoot,
    sinceUs: loadStartedUs,
  });
  return { ...summary, folder };
}
