import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Agent, Pool } from './undici-dispatchers.js';

describe('undici-dispatchers', () => {
  it('are the classes the undici package exports', async () => {
    const undici = await import('undici');
    expect(Pool).toBe(undici.Pool);
    expect(Agent).toBe(undici.Agent);
  });

  it('carry the request API and answer over a real socket', async () => {
    const server = createServer((request, response) => {
      response.setHeader('content-type', 'text/plain');
      response.end(`${request.method} ${request.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const pool = new Pool(`http://127.0.0.1:${port}`);
    const agent = new Agent();
    try {
      const viaPool = await pool.request({ path: '/pool', method: 'GET' });
      expect(viaPool.statusCode).toBe(200);
      expect(await viaPool.body.text()).toBe('GET /pool');
      const viaAgent = await agent.request({
        origin: `http://127.0.0.1:${port}`,
        path: '/agent',
        method: 'POST',
        body: 'x',
      });
      expect(await viaAgent.body.text()).toBe('POST /agent');
    } finally {
      await pool.close();
      await agent.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
