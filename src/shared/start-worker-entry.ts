import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module at `compiled` (the URL of a `.js` file next to the caller). In
 * dist the compiled file is there and runs as is; under tsx or vitest (development only, tsx is a dev
 * dependency) only the `.ts` source is, and a bootstrap loads it through tsx's API.
 */
export function startWorkerEntry(compiled: URL, options: WorkerOptions = {}): Worker {
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, options);
  const source = compiled.href.replace(/\.js$/, '.ts');
  const api = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`;
  return new Worker(bootstrap, { ...options, eval: true });
}
