import { parentPort } from 'node:worker_threads';
import { RouterError } from '../shared/errors.js';
import { loadRoutingTableFile, type TableProblem } from './load-routing-table.js';

/** A load asked of the loading thread. */
export interface TableLoadRequest {
  id: number;
  path: string;
  now: number;
}

/** What the loading thread sends back: the table, or the failure with its key paths. */
export type TableLoadReply = { id: number } & (
  { ok: true; loaded: unknown } | { ok: false; message: string; problems: TableProblem[] }
);

async function run(request: TableLoadRequest): Promise<TableLoadReply> {
  try {
    return { id: request.id, ok: true, loaded: await loadRoutingTableFile(request.path, request.now) };
  } catch (error) {
    const problems = error instanceof RouterError && Array.isArray(error.cause) ? error.cause : [];
    return {
      id: request.id,
      ok: false,
      message: (error as Error).message,
      problems: problems as TableProblem[],
    };
  }
}

// Worker entry: loads each table file (and its keys file) it is asked for and posts the result.
parentPort?.on('message', (request: TableLoadRequest) => {
  void run(request).then((reply) => parentPort?.postMessage(reply));
});
