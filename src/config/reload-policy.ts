import type { ApiKeyConfig } from './table-part-schemas.js';
import type { TableProblem } from './load-routing-table.js';
import type { RoutingTable } from './routing-table-schema.js';

/** API key names a reload adds, removes or changes (limits, tiers, secret): for logs, never the keys. */
export interface KeyChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export function toKeyChanges(previous: RoutingTable, next: RoutingTable): KeyChanges {
  const before = new Map(previous.api_keys.map((key) => [key.name, key]));
  const after = new Map(next.api_keys.map((key) => [key.name, key]));
  const same = (a: ApiKeyConfig, b: ApiKeyConfig): boolean => JSON.stringify(a) === JSON.stringify(b);
  return {
    added: [...after.keys()].filter((name) => !before.has(name)),
    removed: [...before.keys()].filter((name) => !after.has(name)),
    changed: [...after]
      .filter(([name, key]) => {
        const old = before.get(name);
        return old !== undefined && !same(old, key);
      })
      .map(([name]) => name),
  };
}

/**
 * Why a valid new table must still not replace the serving one: a keyed service never becomes open
 * to every client by a reload (an emptied or unreadable-then-truncated keys file would do that)
 * unless the new table says `open_mode: true`, and never when it listens beyond loopback without
 * `--open` (`keylessAllowed` false, see listen-host.ts), whatever the table says.
 */
export function toReloadProblems(
  previous: RoutingTable,
  next: RoutingTable,
  listening: { keylessAllowed: boolean } = { keylessAllowed: true },
): TableProblem[] {
  if (next.api_keys.length === 0 && !listening.keylessAllowed)
    return [
      {
        path: 'api_keys',
        message:
          'the new table has no API keys and the service listens beyond loopback without --open: a keyless table needs --open (AUTOTIER_OPEN=1) at start',
      },
    ];
  if (previous.api_keys.length > 0 && next.api_keys.length === 0 && !next.open_mode)
    return [
      {
        path: 'api_keys',
        message: `the new table has no API keys: it would open the service to every client (${previous.api_keys.length} keys serve now); set open_mode: true to mean it`,
      },
    ];
  return [];
}
