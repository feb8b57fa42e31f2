import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Clock } from '../shared/clock.js';
import { toRouterError } from '../shared/errors.js';
import { loadRoutingTableFile, type LoadedTable } from './load-routing-table.js';

export interface TableReloaderOptions {
  path: string;
  clock: Clock;
  /** Called with each valid new table. */
  onLoad: (table: LoadedTable) => void;
  /** Called when a new version is invalid; the old table keeps serving. */
  onReject: (error: Error) => void;
  /** Version of the table already serving, so an unchanged file is not reloaded. */
  initialVersion?: string;
  /** Quiet time after a file event before reading, ms (editors write in several steps). @default 100 */
  debounceMs?: number;
}

export interface TableReloader {
  /** Re-reads the file now (SIGHUP); resolves true when the file's table is the one serving. */
  reload(): Promise<boolean>;
  close(): void;
}

/** Re-reads the routing table on demand and whenever the file changes. */
export function createTableReloader(options: TableReloaderOptions): TableReloader {
  let timer: NodeJS.Timeout | undefined;
  let lastVersion = options.initialVersion;
  async function reload(): Promise<boolean> {
    try {
      const table = await loadRoutingTableFile(options.path, options.clock.now());
      if (table.version === lastVersion) return true; // already serving (the file watch got there first)
      lastVersion = table.version;
      options.onLoad(table);
      return true;
    } catch (error) {
      options.onReject(toRouterError(error));
      return false;
    }
  }
  let watcher: FSWatcher | undefined;
  try {
    // Watch the folder, not the file: editors and `kubectl cp` replace the file, which ends a file watch.
    const name = basename(options.path);
    watcher = watch(dirname(options.path), { persistent: false }, (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), options.debounceMs ?? 100);
    });
  } catch {
    watcher = undefined;
  }
  return {
    reload,
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
