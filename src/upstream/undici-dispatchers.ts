import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/**
 * undici's Pool and Agent without the rest of the package. `import 'undici'` loads all of it: fetch,
 * WebSocket, the caches, the mocks, and (through its cookie helpers' `Headers` check) Node's own
 * bundled copy of undici besides: about 14 MiB of resident memory a gateway never uses. These are the
 * same classes the package's index exports, and the index's one side effect, putting `request`,
 * `stream`, `pipeline`, `upgrade` and `connect` on every dispatcher, is done here the same way.
 * The paths are undici's own files; its version is pinned in package.json and
 * `undici-dispatchers.test.ts` checks these are the index's classes.
 */
const require = createRequire(import.meta.url);

const DispatcherClass = require('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
Object.assign(DispatcherClass.prototype, require('undici/lib/api/index.js') as object);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Pool = Undici.Pool;
export type Agent = Undici.Agent;
