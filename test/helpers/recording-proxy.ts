import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP proxy on 127.0.0.1 (port 0) in front of one backend that keeps every request body it forwards. */
export interface RecordingProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:1234`. */
  url: string;
  /** Each forwarded POST body parsed as JSON, in arrival order. */
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * Forwards every request unchanged to the origin of `target()` (read per request, so the proxy can
 * start before its backend has a port) and pipes the answer back.
 */
export async function startRecordingProxy(target: () => string): Promise<RecordingProxy> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((incoming, outgoing) => {
    const origin = new URL(target());
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      if (incoming.method === 'POST')
        bodies.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      const forward = httpRequest(
        {
          host: origin.hostname,
          port: origin.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
