import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the bench runs autotier and the simulator: compiled JavaScript (preferred: no tsx loader in
 * the measured process) or TypeScript through tsx.
 *
 * - `dist`: the project's own `npm run build` output, used when it is newer than every file in src/.
 * - `build`: compiles src/ into `.bench-dist/` (a direct child of the project root, because
 *   src/start-autotier.ts finds the project root one level above the compiled file) and deletes it
 *   in `cleanup()`. Type errors from work in progress do not stop it as long as tsc emitted main.js.
 * - `tsx`: no compilation.
 *
 * The simulator is not part of `npm run build` (sim/ does not ship): with `dist` and `build` it is
 * compiled by tsconfig.sim.json into `.bench-dist/simulator/`, which `cleanup()` deletes too.
 */
export type EntryKind = 'dist' | 'build' | 'tsx';

export interface CodeEntries {
  kind: EntryKind;
  /** Node arguments that start autotier; its own flags follow. */
  autotier: string[];
  /** Node arguments that start the simulator CLI; the fleet file and --base-port follow. */
  simulator: string[];
  /** Anything worth printing about how the code was obtained. */
  notes: string[];
  cleanup(): void;
}

const BUILD_FOLDER = '.bench-dist';
/** The simulator's build, under BUILD_FOLDER; it keeps the project's layout (sim/, src/shared/). */
const SIMULATOR_FOLDER = 'simulator';

export async function prepareCodeEntries(options: {
  projectRoot: string;
  /** `auto` = dist if fresh, else build (or tsx when `buildAllowed` is false). */
  preference: EntryKind | 'auto';
  buildAllowed: boolean;
}): Promise<CodeEntries> {
  const { projectRoot, preference } = options;
  const distFresh = isFresh(join(projectRoot, 'dist'), join(projectRoot, 'src'));
  const kind =
    preference !== 'auto' ? preference : distFresh ? 'dist' : options.buildAllowed ? 'build' : 'tsx';
  if (kind === 'tsx') {
    const tsx = ['--import', import.meta.resolve('tsx')];
    return {
      kind,
      autotier: [...tsx, join(projectRoot, 'src/main.ts')],
      simulator: [...tsx, join(projectRoot, 'sim/cli.ts')],
      notes: ['autotier and the simulator ran from TypeScript through tsx (no fresh build)'],
      cleanup: () => undefined,
    };
  }
  const outDir = join(projectRoot, kind === 'dist' ? 'dist' : BUILD_FOLDER);
  const notes = kind === 'dist' ? ['autotier ran from dist/ (npm run build output, newer than src/)'] : [];
  if (kind === 'build') {
    const errors = await compile(projectRoot, { project: 'tsconfig.build.json', outDir });
    notes.push(`autotier ran from a fresh build of src/ in ${BUILD_FOLDER}/ (deleted afterwards)`);
    if (errors > 0)
      notes.push(`tsc reported ${errors} type error(s) in src/ (work in progress); the emitted JS was used`);
  }
  const simulatorDir = join(projectRoot, BUILD_FOLDER, SIMULATOR_FOLDER);
  const simulatorErrors = await compile(projectRoot, { project: 'tsconfig.sim.json', outDir: simulatorDir });
  if (simulatorErrors > 0)
    notes.push(`tsc reported ${simulatorErrors} type error(s) in sim/; the emitted JS was used`);
  const cleanup = (): void => {
    rmSync(join(projectRoot, BUILD_FOLDER), { recursive: true, force: true });
  };
  if (!existsSync(join(outDir, 'main.js'))) {
    cleanup();
    throw new Error(`no ${join(outDir, 'main.js')}: build autotier first or pass --router tsx`);
  }
  return {
    kind,
    autotier: [join(outDir, 'main.js')],
    simulator: [join(simulatorDir, 'sim/cli.js')],
    notes,
    cleanup,
  };
}

/** Compiles one tsconfig into a fresh `outDir`; returns the type errors tsc reported (it emits anyway). */
async function compile(projectRoot: string, build: { project: string; outDir: string }): Promise<number> {
  const { project, outDir } = build;
  rmSync(outDir, { recursive: true, force: true });
  const tsc = join(projectRoot, 'node_modules/typescript/bin/tsc');
  const child = spawn(process.execPath, [tsc, '-p', project, '--outDir', outDir], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code === 0) return 0;
  return Math.max(1, output.split('\n').filter((line) => line.includes('error TS')).length);
}

/** Whether dist/ holds a main.js newer than every file of src/ (`npm run build` since the last edit). */
export function isDistFresh(projectRoot: string): boolean {
  return isFresh(join(projectRoot, 'dist'), join(projectRoot, 'src'));
}

/** True when `built` holds main.js and nothing under `source` was modified after it. */
function isFresh(built: string, source: string): boolean {
  const main = join(built, 'main.js');
  if (!existsSync(main)) return false;
  const builtAt = statSync(main).mtimeMs;
  return newestModification(source) <= builtAt;
}

function newestModification(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestModification(path) : statSync(path).mtimeMs);
  }
  return newest;
}
