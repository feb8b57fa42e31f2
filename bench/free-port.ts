import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1 by binding port 0 and releasing it.
 * Another process could take the port before the caller binds it; good enough for a bench.
 */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not read the bound port');
  return address.port;
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/** First port of `count` consecutive free ports on 127.0.0.1 (the simulator CLI takes a base port). */
export async function findFreePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const base = await findFreePort();
    if (base + count > 65_535) continue;
    let free = true;
    for (let offset = 1; offset < count && free; offset += 1) free = await isFree(base + offset);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
