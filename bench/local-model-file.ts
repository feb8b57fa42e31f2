import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface ModelFile {
  path: string;
  /** True when the bundled model was missing and a stand-in was trained for this run. */
  standIn: boolean;
}

/**
 * The learned model autotier's `local` classifier needs: the bundled
 * src/classify/model/local-model.json, or, while that file is not committed yet, a stand-in trained
 * into `tempDir` from data/written-train.jsonl (`train/cli.ts --no-cv`, about 20 s). The stand-in has the
 * same format and feature layout, so its per-request cost is representative; its accuracy is not.
 */
export async function resolveModelFile(options: {
  projectRoot: string;
  tempDir: string;
}): Promise<ModelFile> {
  const bundled = join(options.projectRoot, 'src/classify/model/local-model.json');
  if (existsSync(bundled)) return { path: bundled, standIn: false };
  const out = join(options.tempDir, 'stand-in-model.json');
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      join(options.projectRoot, 'train/cli.ts'),
      join(options.projectRoot, 'data/written-train.jsonl'),
      '--out',
      out,
      '--no-cv',
    ],
    { cwd: options.projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0 || !existsSync(out))
    throw new Error(`no bundled local model and training a stand-in failed:\n${output.slice(-4000)}`);
  return { path: out, standIn: true };
}
