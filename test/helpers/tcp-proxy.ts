import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy on 127.0.0.1 (port 0) that can cut its connections, to stage a network blip. */
export interface TcpProxy {
  port: number;
  /** Drops every connection through the proxy and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Only connections made through this proxy are ever cut; other clients of the target are untouched. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let refusing = false;
  const open = new Set<Socket>();
  const track = (socket: Socket): void => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  };
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = (): void => {
    for (const socket of open) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      refusing = true;
      cutAll();
    },
    restore() {
      refusing = false;
    },
    close() {
      refusing = true;
      cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
