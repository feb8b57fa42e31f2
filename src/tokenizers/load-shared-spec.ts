import { startWorkerEntry } from '../shared/start-worker-entry.js';
import { loadCompiledSpec } from './compiled-tables.js';
import type { SpecLoadReply } from './spec-load-worker.js';
import type { TokenizerName } from './tokenizer-name.js';
import type { SharedTokenizerSpec } from './tokenizer-spec.js';

/**
 * One tokenizer's tables over SharedArrayBuffers, built on a thread that ends once it has posted them:
 * parsing Qwen's tokenizer.json (11 MB) and o200k's ranks leaves about 100 MiB of garbage that a heap,
 * once grown, keeps as resident memory; a thread's heap is returned whole when it ends.
 */
export function loadSharedSpecOffThread(name: TokenizerName): Promise<SharedTokenizerSpec> {
  return new Promise((resolve, reject) => {
    const worker = startWorkerEntry(new URL('./spec-load-worker.js', import.meta.url), {
      workerData: { tokenizer: name },
    });
    worker.once('message', (reply: SpecLoadReply) => {
      void worker.terminate();
      if (reply.ok) resolve(reply.spec);
      else reject(new Error(reply.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the ${name} loading thread exited (${code})`)));
  });
}

/**
 * A tokenizer's shared tables: the ones the build compiled when they match the installed package, else
 * built from the package on a thread of its own.
 */
export async function loadSharedSpec(name: TokenizerName): Promise<SharedTokenizerSpec> {
  return (await loadCompiledSpec(name).catch(() => undefined)) ?? (await loadSharedSpecOffThread(name));
}

/**
 * Loads each tokenizer's tables once, over SharedArrayBuffers, for a counter and its counting threads
 * to share (a failed load is tried again on the next call).
 */
export function createSharedSpecLoader(
  load: (name: TokenizerName) => Promise<SharedTokenizerSpec> = loadSharedSpec,
): (name: TokenizerName) => Promise<SharedTokenizerSpec> {
  const specs = new Map<TokenizerName, Promise<SharedTokenizerSpec>>();
  return (name) => {
    let spec = specs.get(name);
    if (spec === undefined) {
      spec = load(name);
      specs.set(name, spec);
      spec.catch(() => specs.delete(name));
    }
    return spec;
  };
}
