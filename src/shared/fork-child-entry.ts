import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A child process running the module at `compiled` (the URL of a `.js` file next to the caller), as
 * startWorkerEntry does for threads: in dist the compiled file runs as is; under tsx or vitest
 * (development only) only the `.ts` source is there, and tsx's loader runs it. The child gets no
 * exec args of its own parent (`--max-old-space-size`, `--expose-gc`, vitest's): only tsx's, when
 * it needs them.
 */
export function forkChildEntry(
  compiled: URL,
  args: readonly string[],
  options: ForkOptions = {},
): ChildProcess {
  const path = fileURLToPath(compiled);
  if (existsSync(path)) return fork(path, args, { ...options, execArgv: [] });
  const source = path.replace(/\.js$/, '.ts');
  return fork(source, args, { ...options, execArgv: ['--import', import.meta.resolve('tsx')] });
}
