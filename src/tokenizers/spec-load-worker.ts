import { parentPort, workerData } from 'node:worker_threads';
import { loadTokenizerSpec } from './load-text-counter.js';
import type { TokenizerName } from './tokenizer-name.js';
import { toSharedSpec, type SharedTokenizerSpec } from './tokenizer-spec.js';

/** What the loading thread answers, once, before it ends. */
export type SpecLoadReply = { ok: true; spec: SharedTokenizerSpec } | { ok: false; message: string };

// Worker entry: builds one tokenizer's tables over SharedArrayBuffers, posts them (no copy) and ends,
// so the parsed tokenizer.json or rank strings die with this thread's heap, not in the server's.
const name = (workerData as { tokenizer: TokenizerName }).tokenizer;
loadTokenizerSpec(name).then(
  (spec) => parentPort?.postMessage({ ok: true, spec: toSharedSpec(spec) } satisfies SpecLoadReply),
  (error: unknown) =>
    parentPort?.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    } satisfies SpecLoadReply),
);
