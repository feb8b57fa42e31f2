import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findFreePort } from './free-port.js';

/**
 * Runs Portkey's open-source gateway (@portkey-ai/gateway) as a child Node process on loopback,
 * configured as the "equivalent single-target config" of the benchmark: provider `openai`
 * with a custom host, no retries, no cache, no timeout, no guardrails.
 */
export interface PortkeyOptions {
  /** Port on 127.0.0.1. @default a free ephemeral port */
  port?: number;
  /** OpenAI-compatible base URL including `/v1`, e.g. `http://127.0.0.1:4100/v1`. */
  upstreamBaseUrl: string;
  /** How long to wait for the gateway to answer `GET /`, in milliseconds. @default 15000 */
  readyTimeoutMs?: number;
}

export interface PortkeyGateway {
  /** OpenAI-style base URL: POST `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Headers every request through the gateway must carry (the single-target config). */
  headers: Record<string, string>;
  pid: number;
  /** Sends SIGTERM, waits for exit (SIGKILL after 3 s). Safe to call twice. */
  close(): Promise<void>;
}

/** The config Portkey reads from `x-portkey-config`; `cache` is absent, so caching is off. */
export function toPortkeyConfig(upstreamBaseUrl: string): Record<string, unknown> {
  return {
    provider: 'openai',
    // Portkey sends this upstream as `Authorization: Bearer ...`, replacing the client's header.
    api_key: 'sk-bench',
    custom_host: upstreamBaseUrl,
    retry: { attempts: 0 },
  };
}

/** Environment variables that would change what the gateway does (proxying, Redis cache, host allow-list). */
const strippedEnvironment = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'http_proxy',
  'https_proxy',
  'REDIS_CONNECTION_STRING',
  'TRUSTED_CUSTOM_HOSTS',
  'NODE_OPTIONS',
];

export async function startPortkey(options: PortkeyOptions): Promise<PortkeyGateway> {
  const port = options.port ?? (await findFreePort());
  const child = spawnGateway(port);
  const stderr = collectTail(child);
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady({ child, origin, timeoutMs: options.readyTimeoutMs ?? 15_000 });
  } catch (error) {
    await stopChild(child);
    process.removeListener('exit', killOnExit);
    throw new Error(`Portkey gateway did not start on ${origin}: ${(error as Error).message}\n${stderr()}`, {
      cause: error,
    });
  }
  return {
    baseUrl: `${origin}/v1`,
    headers: { 'x-portkey-config': JSON.stringify(toPortkeyConfig(options.upstreamBaseUrl)) },
    pid: child.pid ?? -1,
    close: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

function spawnGateway(port: number): ChildProcess {
  const require = createRequire(import.meta.url);
  const gatewayRoot = dirname(require.resolve('@portkey-ai/gateway/package.json'));
  const preload = new URL('./portkey-preload.mjs', import.meta.url).href;
  const environment = { ...process.env };
  for (const name of strippedEnvironment) delete environment[name];
  // `--port=N` must use the equals form; `--port N` and $PORT are ignored (it falls back to 8787).
  // `--headless` skips the web UI and its /log/stream endpoint.
  const args = [
    '--import',
    preload,
    join(gatewayRoot, 'build', 'start-server.js'),
    `--port=${port}`,
    '--headless',
  ];
  // stdout only carries a spinner, console.clear() escapes and a banner: discard it.
  // The IPC channel only carries the preload's one `listening` / `error` report.
  return spawn(process.execPath, args, { env: environment, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
}

/** Keeps the last 8 KiB of the child's stderr for error messages; reading it also avoids back-pressure. */
function collectTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    tail = (tail + text).slice(-8192);
  });
  return () => tail;
}

/**
 * Waits for the preload's `listening` report (a bind error or an early exit rejects), then checks
 * that `GET /` answers. The report matters: probing alone would be fooled by another process on the port.
 */
async function waitUntilReady(options: {
  child: ChildProcess;
  origin: string;
  timeoutMs: number;
}): Promise<void> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const listening = new Promise<void>((resolve, reject) => {
    options.child.on('message', (message: unknown) => {
      const report = message as { event?: string; message?: string };
      if (report.event === 'listening') resolve();
      else reject(new Error(`listen failed: ${report.message ?? 'unknown error'}`));
    });
    options.child.once('exit', (code, exitSignal) =>
      reject(new Error(`exited early (code ${String(code)}, signal ${String(exitSignal)})`)),
    );
    signal.addEventListener('abort', () => reject(new Error(`not listening within ${options.timeoutMs} ms`)));
  });
  await listening;
  const response = await fetch(`${options.origin}/`, { signal });
  const text = await response.text();
  if (!response.ok || !text.includes('AI Gateway'))
    throw new Error(`GET / answered ${response.status}: ${text.slice(0, 200)}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
