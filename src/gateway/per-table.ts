import type { LoadedTable } from '../config/load-routing-table.js';

/**
 * `build` of a loaded table, computed on the first call after a load and kept while the table is
 * (a hot reload's new table gets its own; the old one's is collected with it).
 */
export function perTable<T>(build: (loaded: LoadedTable) => T): (loaded: LoadedTable) => T {
  const built = new WeakMap<LoadedTable, T>();
  return (loaded) => {
    let value = built.get(loaded);
    if (value === undefined) {
      value = build(loaded);
      built.set(loaded, value);
    }
    return value;
  };
}
