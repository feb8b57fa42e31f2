import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One server of the bench (simulator, autotier, nginx) in its own process: started, polled until
 * its health URL answers 200, and stopped with SIGTERM (SIGKILL after 5 s). The child is also
 * killed if this process exits without closing it.
 */
export interface ChildService {
  name: string;
  pid: number;
  /** Last 8 KiB of the child's stdout and stderr, for error messages. */
  output(): string;
  /** True while the child has not exited. */
  isRunning(): boolean;
  /** Sends SIGTERM and waits for the exit; safe to call twice. */
  close(): Promise<void>;
}

export interface ChildServiceOptions {
  name: string;
  /** Program to run. @default the running Node binary */
  command?: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** URLs that must all answer 200 before the service counts as ready. */
  healthUrls: readonly string[];
  /** @default 30000 */
  readyTimeoutMs?: number;
}

export async function startChildService(options: ChildServiceOptions): Promise<ChildService> {
  const child = spawn(options.command ?? process.execPath, [...options.args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const collect = (text: string): void => void (tail = (tail + text).slice(-8192));
  child.stdout?.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const service: ChildService = {
    name: options.name,
    pid: child.pid ?? -1,
    output: () => tail,
    isRunning: () => child.exitCode === null && child.signalCode === null,
    close: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
  try {
    await waitForHealth({ child, urls: options.healthUrls, timeoutMs: options.readyTimeoutMs ?? 30_000 });
  } catch (error) {
    await service.close();
    throw new Error(`${options.name} did not become ready: ${(error as Error).message}\n${tail}`, {
      cause: error,
    });
  }
  return service;
}

async function waitForHealth(options: { child: ChildProcess; urls: readonly string[]; timeoutMs: number }) {
  const deadline = performance.now() + options.timeoutMs;
  for (const url of options.urls) {
    for (;;) {
      if (options.child.exitCode !== null || options.child.signalCode !== null)
        throw new Error(`exited early (code ${String(options.child.exitCode)})`);
      if (await answers200(url)) break;
      if (performance.now() > deadline) throw new Error(`${url} not healthy within ${options.timeoutMs} ms`);
      await sleep(100);
    }
  }
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
