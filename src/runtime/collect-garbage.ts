import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collector as its `gc` extension exposes it (the options of `--expose-gc`'s `gc()`). */
type GcFunction = (options?: {
  type?: 'major' | 'minor';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

let cached: GcFunction | undefined;

/**
 * V8's `gc()` without starting the process with `--expose-gc`: the flag is switched on only while a
 * fresh context is made (a context reads it when it is created), so no global `gc` appears in the
 * application's own context.
 */
function loadGc(): GcFunction {
  if (cached !== undefined) return cached;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') {
    cached = exposed as GcFunction;
    return cached;
  }
  setFlagsFromString('--expose-gc');
  try {
    cached = runInNewContext('gc') as GcFunction;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return cached;
}

/**
 * Hands the memory V8 grew for loading the code back to the system: a last-resort collection (the one
 * V8 runs under memory pressure) compacts the old generation, shrinks the young generation back to its
 * initial size and releases the pooled pages. Start-up grows the young generation to its maximum
 * (32 MiB on 64-bit Node 24) and nothing shrinks it while the process is idle, since an idle process
 * allocates nothing that would start a collection. It also discards the bytecode of functions not
 * running (module bodies that never run again). Costs tens of milliseconds of main thread: run it
 * before the server accepts requests.
 */
export function releaseStartupMemory(): void {
  loadGc()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  growYoungGenerationFast();
}

/**
 * The young generation that the last-resort collection shrank (to 1 MiB) grows again only by V8's
 * growth factor (2) each time it finds it too small, so under load the server would scavenge every
 * megabyte or so for a long while: measured +15% CPU per request at concurrency 1 against a server
 * whose young generation stayed at its maximum. A factor of 32 takes it back to its maximum (16 MiB
 * per semispace) at the first growth under load, while an idle server keeps the small one. V8 reads
 * this flag when it grows the young generation, so setting it at run time takes effect.
 */
function growYoungGenerationFast(): void {
  setFlagsFromString('--semi-space-growth-factor=32');
}

/**
 * After a quiet spell: the same last-resort collection as at start-up, handing back what the busy spell
 * grew (the young generation at its maximum, pooled pages, old-generation pages emptied by compaction).
 * It also discards the bytecode of the functions not running, so the requests after it compile their
 * code again: run it only after a spell long enough to call the process idle. An ordinary full
 * collection keeps the code but returns less: it leaves the shrinking to V8's memory reducer, which
 * in the soak had not run 12 s later (idle RSS +28% against +0% with this one). Returns how long the
 * main thread was held, ms.
 */
export function releaseIdleMemory(): number {
  const startedAt = performance.now();
  loadGc()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return performance.now() - startedAt;
}

/** One ordinary full collection (what `--expose-gc`'s `gc()` runs), for measurements. */
export function collectGarbage(): void {
  loadGc()();
}
