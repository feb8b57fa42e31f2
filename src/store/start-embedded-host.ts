import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { forkChildEntry } from '../shared/fork-child-entry.js';
import type { Logger } from '../shared/logger.js';
import {
  EmbeddedDatabaseError,
  type CloseRequest,
  type ExecRequest,
  type HostMessage,
  type HostResult,
  type QueryRequest,
} from './embedded-protocol.js';

/** A request without its id: the host numbers them. */
export type HostOperation = Omit<QueryRequest, 'id'> | Omit<ExecRequest, 'id'> | Omit<CloseRequest, 'id'>;

/** The child process running PGlite (embedded-host.ts), as the parent sees it. */
export interface EmbeddedHost {
  readonly pid: number;
  /** Sends one request; rejects with the error PGlite threw, or when the child is gone. */
  request(operation: HostOperation): Promise<HostResult>;
  /** Disconnects, and resolves when the child has exited (at once when it already has). */
  disconnect(): Promise<void>;
}

export interface EmbeddedHostOptions {
  /** Where the child's stdout and stderr go, line by line; without one, to this process's stderr. */
  logger?: Logger | undefined;
}

interface Pending {
  resolve: (result: HostResult) => void;
  reject: (error: Error) => void;
}

/**
 * The requests waiting for their replies, by id. The child keeps this process running only while
 * one waits (or close() waits for its exit), as an in-process PGlite did: a process that is
 * otherwise done may end, and then the child sees its channel close and exits too.
 */
function createPendingRequests(child: ChildProcess) {
  const waiting = new Map<number, Pending>();
  let nextId = 1;
  const hold = (): void => {
    child.ref();
    child.channel?.ref();
  };
  const release = (): void => {
    if (waiting.size > 0) return;
    child.unref();
    child.channel?.unref();
  };
  return {
    hold,
    release,
    add(pending: Pending): number {
      waiting.set(nextId, pending);
      hold();
      return nextId++;
    },
    take(id: number): Pending | undefined {
      const pending = waiting.get(id);
      waiting.delete(id);
      release();
      return pending;
    },
    rejectAll(error: Error): void {
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
    },
  };
}

function forwardLines(stream: Readable | null, write: (line: string) => void): void {
  if (stream === null) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', write);
  // Output alone does not keep this process running: only requests in flight do.
  (stream as Readable & { unref?: () => void }).unref?.();
}

function forwardOutput(child: ChildProcess, logger: Logger | undefined): void {
  const prefix = `pglite[${child.pid ?? '?'}]: `;
  const toStderr = (line: string): void => void process.stderr.write(`${prefix}${line}\n`);
  forwardLines(child.stdout, logger ? (line) => logger.info(prefix + line) : toStderr);
  forwardLines(child.stderr, logger ? (line) => logger.warn(prefix + line) : toStderr);
}

function describeExit(pid: number | undefined, code: number | null, signal: NodeJS.Signals | null): string {
  const how = signal === null ? `with code ${code ?? '?'}` : `on ${signal}`;
  return `the embedded database's process (pid ${pid ?? '?'}) exited ${how}; it is not restarted`;
}

/**
 * Forks embedded-host.ts on `dir` and resolves once PGlite is open there; rejects with PGlite's
 * error (or the child's exit) when it cannot open. If the child dies later, requests in flight and
 * every later request reject with an error naming its exit: it is not restarted here (the ledger's
 * spool keeps rows while the database is away, and a restart belongs to whoever owns that policy).
 */
export async function startEmbeddedHost(
  dir: string,
  options: EmbeddedHostOptions = {},
): Promise<EmbeddedHost> {
  const child = forkChildEntry(new URL('./embedded-host.js', import.meta.url), [dir], {
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const { logger } = options;
  const report = (line: string): void =>
    logger ? logger.error(line) : void process.stderr.write(`${line}\n`);
  forwardOutput(child, logger);
  const pending = createPendingRequests(child);
  let gone: Error | undefined;
  let opened!: () => void;
  let notOpened!: (error: Error) => void;
  let openFailed: EmbeddedDatabaseError | undefined;
  const ready = new Promise<void>((resolve, reject) => ((opened = resolve), (notOpened = reject)));
  const disconnected = new Promise<void>((resolve) => child.once('disconnect', resolve));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      // The channel closes after the last message was read: replies sent before a crash still
      // resolve their requests. ('close' would wait for that too, but is not always emitted.)
      void (child.connected ? disconnected : Promise.resolve()).then(() => {
        gone = openFailed ?? new Error(describeExit(child.pid, code, signal));
        pending.rejectAll(gone);
        notOpened(gone);
        resolve();
      });
    });
  });
  // A failed spawn emits 'error' and no 'exit'; a failed send is answered through its callback.
  child.on('error', (error) => {
    notOpened(error);
    report(`pglite: the child process failed: ${error.message}`);
  });
  child.on('message', (message: HostMessage) => {
    if (message.type === 'ready') return opened();
    if (message.type === 'failed') return void (openFailed = new EmbeddedDatabaseError(message.error));
    const request = pending.take(message.id);
    if ('error' in message) request?.reject(new EmbeddedDatabaseError(message.error));
    else request?.resolve(message.result);
  });

  await ready;
  pending.release();
  const unsent = (error: Error): Error =>
    gone ??
    new Error(`could not send to the embedded database's process (pid ${child.pid}): ${error.message}`);

  return {
    pid: child.pid!,
    request: (operation) => {
      if (gone !== undefined) return Promise.reject(gone);
      return new Promise<HostResult>((resolve, reject) => {
        const id = pending.add({ resolve, reject });
        const failed = (error: Error | null): void => {
          if (error !== null && pending.take(id) !== undefined) reject(unsent(error));
        };
        try {
          child.send({ ...operation, id }, failed);
        } catch (error) {
          // Values the structured clone cannot copy (functions, symbols) throw here.
          failed(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    disconnect: async () => {
      pending.hold();
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
