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
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let gone: Error | undefined;
  // The child keeps this process running only while a request waits for its reply (or close waits
  // for its exit), as an in-process PGlite did: a process that is otherwise done may end, and the
  // child sees its channel close and exits too.
  const busy = (): void => {
    child.ref();
    child.channel?.ref();
  };
  const idle = (): void => {
    if (pending.size > 0) return;
    child.unref();
    child.channel?.unref();
  };

  let opened!: () => void;
  let notOpened!: (error: Error) => void;
  let openFailed: EmbeddedDatabaseError | undefined;
  const ready = new Promise<void>((resolve, reject) => ((opened = resolve), (notOpened = reject)));
  const disconnected = new Promise<void>((resolve) => child.once('disconnect', resolve));
  const exited = new Promise<Error>((resolve) => {
    child.once('exit', (code, signal) => {
      // The channel closes after the last message was read: replies sent before a crash still
      // resolve their requests. ('close' would wait for that too, but is not always emitted.)
      void (child.connected ? disconnected : Promise.resolve()).then(() => {
        gone = openFailed ?? new Error(describeExit(child.pid, code, signal));
        for (const request of pending.values()) request.reject(gone);
        pending.clear();
        resolve(gone);
      });
    });
  });
  void exited.then(notOpened);
  // A failed spawn emits 'error' and no 'exit'; a failed send is answered through its callback.
  child.on('error', (error) => {
    notOpened(error);
    report(`pglite: the child process failed: ${error.message}`);
  });
  child.on('message', (message: HostMessage) => {
    if (message.type === 'ready') return opened();
    if (message.type === 'failed') return void (openFailed = new EmbeddedDatabaseError(message.error));
    const request = pending.get(message.id);
    if (request === undefined) return;
    pending.delete(message.id);
    idle();
    if ('error' in message) request.reject(new EmbeddedDatabaseError(message.error));
    else request.resolve(message.result);
  });

  await ready;
  idle();

  return {
    pid: child.pid!,
    request: (operation) => {
      if (gone !== undefined) return Promise.reject(gone);
      const id = nextId++;
      return new Promise<HostResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        busy();
        const sent = (error: Error | null): void => {
          if (error === null || !pending.delete(id)) return;
          idle();
          reject(
            gone ??
              new Error(
                `could not reach the embedded database's process (pid ${child.pid}): ${error.message}`,
              ),
          );
        };
        try {
          child.send({ ...operation, id }, sent);
        } catch (error) {
          // Values the structured clone cannot copy (functions, symbols) throw here.
          sent(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    disconnect: async () => {
      busy();
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
