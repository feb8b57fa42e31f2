import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNginx, startNodeFloor, toNginxConfig, type ReferenceProxy } from './reference-proxies.js';

const starters = {
  nginx: startNginx,
  'node floor': startNodeFloor,
};

// The reference proxies of `npm run bench`: they must forward by path prefix and relay streams as they come.
describe.each(Object.keys(starters) as (keyof typeof starters)[])('%s reference proxy', (name) => {
  let backend: Server;
  let nginx: ReferenceProxy;
  let tempDir: string;
  let releaseSecondChunk: () => void = () => undefined;

  beforeAll(async () => {
    backend = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url === '/v1/stream') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: one\n\n');
        releaseSecondChunk = () => response.end('data: two\n\n');
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => response.end(JSON.stringify({ path: request.url, body })));
    });
    backend.listen(0, '127.0.0.1');
    await once(backend, 'listening');
    const address = backend.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const base = `http://127.0.0.1:${address.port}/v1`;
    tempDir = mkdtempSync(join(tmpdir(), 'autotier-nginx-'));
    const started = await starters[name]({
      tempDir,
      upstreams: { zero: base, realistic: base, paced: base },
    });
    if ('unavailable' in started) throw new Error(`${started.unavailable} (.ci/run installs it)`);
    nginx = started;
  });

  afterAll(async () => {
    await nginx?.service.close();
    backend?.close();
    rmSync(tempDir, { recursive: true, force: true });
  });

  it('forwards /<backend>/v1/... to the backend with the prefix removed and the body intact', async () => {
    const response = await fetch(`${nginx.origin}/realistic/v1/chat/completions`, {
      method: 'POST',
      body: '{"model":"m"}',
    });
    expect(await response.json()).toEqual({ path: '/v1/chat/completions', body: '{"model":"m"}' });
  });

  it('relays a stream chunk before the backend sends the next one', async () => {
    const response = await fetch(`${nginx.origin}/paced/v1/stream`);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data: one');
    releaseSecondChunk();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read())
      rest += new TextDecoder().decode(part.value);
    expect(rest).toContain('data: two');
  });
});

it('the nginx config has one upstream pool and one location per backend', () => {
  const config = toNginxConfig({
    port: 1234,
    tempDir: '/tmp/x',
    upstreams: {
      zero: 'http://127.0.0.1:1/v1',
      realistic: 'http://127.0.0.1:2/v1',
      paced: 'http://127.0.0.1:3/v1',
    },
  });
  expect(config).toContain('upstream paced { server 127.0.0.1:3; keepalive 1024; }');
  expect(config).toContain('location /zero/ { proxy_pass http://zero/;');
  expect(config).toContain('listen 127.0.0.1:1234;');
});
