import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Clock } from '../shared/clock.js';
import { toRouterError } from '../shared/errors.js';
import type { LoadedTable, TableProblem } from './load-routing-table.js';
import { createOffThreadLoader } from './load-table-off-thread.js';
import { toReloadProblems } from './reload-policy.js';

/** A reload that was refused: the previous table keeps serving. */
export interface TableRejection {
  /** Epoch ms. */
  at: number;
  /** The table file that was read. */
  file: string;
  message: string;
  /** Key paths and what is wrong with each. */
  problems: readonly TableProblem[];
}

export interface TableReloaderOptions {
  path: string;
  clock: Clock;
  /** The table serving now: an unchanged file is not reloaded, and reload policies compare with it. */
  current: () => LoadedTable;
  /** Reads a table and its keys file. @default a worker thread (createOffThreadLoader) */
  load?: (path: string, now: number) => Promise<LoadedTable>;
  /** Called with each valid new table. */
  onLoad: (table: LoadedTable) => void;
  /** Called when a new version is invalid or refused; the old table keeps serving. */
  onReject: (rejection: TableRejection) => void;
  /** Quiet time after a file event before reading, ms (editors write in several steps). @default 100 */
  debounceMs?: number;
  /** A table without keys may serve (see listen-host.ts); false refuses one. @default true */
  keylessAllowed?: boolean;
}

export interface TableReloader {
  /** Re-reads the files now (SIGHUP); resolves true when the files' table is the one serving. */
  reload(): Promise<boolean>;
  close(): void;
}

/** Watches folders, not files: editors and `kubectl cp` replace files, which ends a file watch. */
function watchFiles(files: readonly string[], onChange: () => void): FSWatcher[] {
  const folders = new Map<string, Set<string>>();
  for (const file of files) {
    const names = folders.get(dirname(file)) ?? new Set<string>();
    names.add(basename(file));
    folders.set(dirname(file), names);
  }
  const watchers: FSWatcher[] = [];
  for (const [folder, names] of folders) {
    try {
      watchers.push(
        watch(folder, { persistent: false }, (_event, changed) => {
          if (changed === null || names.has(changed)) onChange();
        }),
      );
    } catch {
      // a folder that cannot be watched still reloads on SIGHUP
    }
  }
  return watchers;
}

/** Re-reads the routing table and its keys file on demand and whenever either file changes. */
export function createTableReloader(options: TableReloaderOptions): TableReloader {
  const offThread = options.load === undefined ? createOffThreadLoader() : undefined;
  const load =
    options.load ??
    ((path: string, now: number): Promise<LoadedTable> =>
      (offThread ?? createOffThreadLoader()).load(path, now));
  let timer: NodeJS.Timeout | undefined;
  let watchers: FSWatcher[] = [];
  let watched = '';
  let queue: Promise<boolean> = Promise.resolve(true);
  const arm = (files: readonly string[]): void => {
    const key = files.join('\n');
    if (key === watched) return;
    for (const watcher of watchers) watcher.close();
    watched = key;
    watchers = watchFiles(files, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), options.debounceMs ?? 100);
    });
  };
  const reject = (message: string, problems: readonly TableProblem[]): false => {
    options.onReject({ at: options.clock.now(), file: options.path, message, problems });
    return false;
  };
  async function readOnce(): Promise<boolean> {
    let table: LoadedTable;
    try {
      table = await load(options.path, options.clock.now());
    } catch (error) {
      const failure = toRouterError(error);
      const problems = Array.isArray(failure.cause) ? (failure.cause as TableProblem[]) : [];
      return reject(failure.message, problems);
    }
    arm(table.files);
    const serving = options.current();
    if (table.version === serving.version) return true;
    const problems = toReloadProblems(serving.table, table.table, {
      keylessAllowed: options.keylessAllowed ?? true,
    });
    if (problems.length > 0)
      return reject(
        `routing table ${options.path} refused:\n${problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n')}`,
        problems,
      );
    options.onLoad(table);
    return true;
  }
  /** One read at a time: a SIGHUP during a file-change reload waits for it. */
  function reload(): Promise<boolean> {
    queue = queue.then(readOnce, readOnce);
    return queue;
  }
  arm(options.current().files.length > 0 ? options.current().files : [options.path]);
  return {
    reload,
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      watchers = [];
      void offThread?.close();
    },
  };
}
