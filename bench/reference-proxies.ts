import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Unavailable } from './bench-data.js';
import { BACKENDS, type BackendId } from './bench-fleet.js';
import { startChildService, type ChildService } from './child-service.js';
import { findFreePort } from './free-port.js';

/**
 * Two reference proxies in front of the same simulator backends, measured in the same run; neither
 * is a competitor, both do none of a gateway's work:
 * - nginx, a compiled reverse proxy: what one more loopback hop costs on this machine when the
 *   proxy spends almost no CPU (the floor for any gateway here);
 * - the Node floor (`node-floor-proxy.mjs`): what Node's HTTP stack alone costs per request.
 */
export interface ReferenceProxy {
  service: ChildService;
  /** `http://127.0.0.1:N`; backend `zero` is at `${origin}/zero/v1/...`. */
  origin: string;
}

const CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'];

export function findNginx(): string | undefined {
  return CANDIDATES.find((path) => existsSync(path));
}

/**
 * One worker process (like the single autotier process), keep-alive upstream pools, no access log,
 * no response buffering (streams are relayed chunk by chunk, as autotier and Portkey do).
 */
export function toNginxConfig(options: {
  port: number;
  tempDir: string;
  upstreams: Record<BackendId, string>;
}) {
  const upstreams = BACKENDS.map((backend) => {
    const { host } = new URL(options.upstreams[backend.id]);
    return `  upstream ${backend.id} { server ${host}; keepalive 1024; }`;
  });
  const locations = BACKENDS.map(
    (backend) =>
      `    location /${backend.id}/ { proxy_pass http://${backend.id}/; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }`,
  );
  return [
    'worker_processes 1;',
    'daemon off;',
    'master_process on;',
    `pid ${join(options.tempDir, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 8192; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${join(options.tempDir, 'nginx-body')};`,
    `  proxy_temp_path ${join(options.tempDir, 'nginx-proxy')};`,
    ...upstreams,
    '  server {',
    `    listen 127.0.0.1:${options.port};`,
    '    location = /health { return 200 "ok"; }',
    ...locations,
    '  }',
    '}',
    '',
  ].join('\n');
}

export async function startNginx(options: {
  tempDir: string;
  upstreams: Record<BackendId, string>;
}): Promise<ReferenceProxy | Unavailable> {
  const binary = findNginx();
  if (binary === undefined) return { unavailable: 'nginx is not installed (apt-get install nginx-light)' };
  const port = await findFreePort();
  const configFile = join(options.tempDir, 'nginx.conf');
  writeFileSync(configFile, toNginxConfig({ port, ...options }));
  const origin = `http://127.0.0.1:${port}`;
  try {
    const service = await startChildService({
      name: 'nginx',
      command: binary,
      args: ['-c', configFile, '-p', options.tempDir, '-e', 'stderr'],
      healthUrls: [`${origin}/health`],
      readyTimeoutMs: 10_000,
    });
    return { service, origin };
  } catch (error) {
    return { unavailable: `nginx did not start: ${(error as Error).message.split('\n')[0] ?? ''}` };
  }
}

/**
 * The Node floor (`node-floor-proxy.mjs`): node:http in, undici out, bytes passed through, one
 * process, in front of the same backends.
 */
export async function startNodeFloor(options: {
  upstreams: Record<BackendId, string>;
}): Promise<ReferenceProxy | Unavailable> {
  const port = await findFreePort();
  const origin = `http://127.0.0.1:${port}`;
  const script = fileURLToPath(new URL('./node-floor-proxy.mjs', import.meta.url));
  try {
    const service = await startChildService({
      name: 'node floor proxy',
      args: [script, '--port', String(port), '--backends', JSON.stringify(options.upstreams)],
      healthUrls: [`${origin}/health`],
      readyTimeoutMs: 10_000,
    });
    return { service, origin };
  } catch (error) {
    return {
      unavailable: `the node floor proxy did not start: ${(error as Error).message.split('\n')[0] ?? ''}`,
    };
  }
}
