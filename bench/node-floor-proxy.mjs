// The Node floor of the bench: the least a Node.js gateway can do per request. node:http in, undici
// out, the body passed through as bytes (no parsing, no routing, no timeouts, no metrics), each
// backend under `/<backend id>/`. Measured beside autotier, it separates what Node's HTTP stack
// costs on this machine from what autotier's own work costs.
//
//   node bench/node-floor-proxy.mjs --port N --backends '{"zero":"http://127.0.0.1:41000/v1",...}'
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { URL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({ options: { port: { type: 'string' }, backends: { type: 'string' } } });
const pools = new Map(
  Object.entries(JSON.parse(values.backends ?? '{}')).map(([id, baseUrl]) => {
    const url = new URL(baseUrl);
    return [
      id,
      { pool: new Pool(url.origin, { connections: 4096 }), prefix: url.pathname.replace(/\/$/, '') },
    ];
  }),
);

createServer((request, response) => {
  if (request.url === '/health') return void response.end('ok');
  const [, id = '', ...rest] = (request.url ?? '/').split('/');
  const backend = pools.get(id);
  if (backend === undefined) {
    response.writeHead(404).end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    backend.pool
      .stream(
        {
          method: request.method ?? 'GET',
          path: `/${rest.join('/')}`.replace(/^\/v1/, backend.prefix),
          headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
          body: Buffer.concat(chunks),
        },
        ({ statusCode, headers }) => {
          response.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? '') });
          return response;
        },
      )
      .catch(() => response.destroy());
  });
}).listen(Number(values.port), '127.0.0.1');
