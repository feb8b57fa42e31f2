// Preloaded with `node --import` into the Portkey gateway child process started by portkey.ts.
// Two narrow patches, both for @portkey-ai/gateway 1.15.2 with @hono/node-server 1.19.19:
//
// 1. Loopback only. The gateway calls `serve({ fetch, port })` without a hostname, so Node binds
//    every interface (`::`). A host-less `listen(port, ...)` is rewritten to 127.0.0.1.
//
// 2. Streaming works. The gateway wraps an upstream SSE answer as `new Response(stream, upstream)`
//    and then appends `x-portkey-*` headers. @hono/node-server's lightweight Response (> 1.14.2)
//    reuses the upstream's immutable Headers, so every `stream: true` chat completion fails with
//    `TypeError: immutable` and a 500 "Something went wrong"
//    (https://github.com/Portkey-AI/gateway/issues/1389). Upstream SSE responses are therefore
//    re-wrapped with a mutable copy of their headers; the body stream is passed through untouched.
//
// Also: when started with an IPC channel, the first listening server reports `{ event: 'listening' }`
// or `{ event: 'error' }` to the parent. The gateway itself ignores listen errors (seen with
// EADDRINUSE) and stays alive with no listener, so a failed bind exits here with code 1.
import net from 'node:net';
import process from 'node:process';

const host = process.env.BENCH_LISTEN_HOST ?? '127.0.0.1';
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number') {
    if (args[1] === undefined || args[1] === null) args[1] = host;
    else if (typeof args[1] === 'function') args.splice(1, 0, host);
    reportListening(this);
  }
  return originalListen.apply(this, args);
};

let reported = false;

function reportListening(server) {
  if (reported || typeof process.send !== 'function') return;
  reported = true;
  server.once('listening', () => {
    process.send({ event: 'listening', address: server.address() });
    process.disconnect();
  });
  server.once('error', (error) => {
    process.send({ event: 'error', message: `${error.code ?? ''} ${error.message}` }, () => process.exit(1));
  });
}

const NativeResponse = globalThis.Response;
const originalFetch = globalThis.fetch;

globalThis.fetch = async function fetchWithMutableStreamHeaders(input, init) {
  const response = await originalFetch(input, init);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream') || response.body === null) return response;
  return new NativeResponse(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: new globalThis.Headers(response.headers),
  });
};
