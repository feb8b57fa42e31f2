import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../shared/logger.js';
import type { HttpEdge } from './create-http-edge.js';
import { createEdgeApp, createEdgeRouter } from './express-edge.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(() => resolve(undefined)))),
  );
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An edge that answers with what it was given: the path below the mount and the mount path. */
const echoEdge: HttpEdge = (request: IncomingMessage, response, basePath) => {
  const text = JSON.stringify({ url: request.url, basePath });
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(text);
  return Promise.resolve();
};

describe('the edge on express', () => {
  it("adds none of express's headers to autotier's own app, and passes the query string through unparsed", async () => {
    const url = await serve(createEdgeApp(echoEdge, createRecordingLogger()));
    const response = await fetch(`${url}/v1/models?a[b]=1`);
    expect(await response.json()).toEqual({ url: '/v1/models?a[b]=1', basePath: '' });
    const names: string[] = [];
    response.headers.forEach((_value, name) => names.push(name));
    expect(names.sort()).toEqual(['connection', 'content-type', 'date', 'keep-alive', 'transfer-encoding']);
  });

  it('gives the edge the path below the mount and the mount path, under any prefix', async () => {
    const app = express();
    app.use('/llm/v2', createEdgeRouter(echoEdge, createRecordingLogger()));
    const url = await serve(app);
    const response = await fetch(`${url}/llm/v2/v1/chat/completions?x=1`);
    expect(await response.json()).toEqual({ url: '/v1/chat/completions?x=1', basePath: '/llm/v2' });
  });

  it("answers a fault that reaches express with the OpenAI-shaped 500, never express's HTML page", async () => {
    const failing: HttpEdge = (_request, response) => {
      response.setHeader('x-request-id', 'the-request');
      return Promise.reject(new Error('an edge fault'));
    };
    const logger = createRecordingLogger();
    for (const listener of [
      createEdgeApp(failing, logger),
      express().use('/p', createEdgeRouter(failing, logger)),
    ]) {
      const url = await serve(listener);
      const response = await fetch(`${url}/p/v1/models`);
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({
        error: {
          message: 'an unexpected error inside autotier; the request id finds it in the logs',
          type: 'api_error',
          code: 'internal',
          param: null,
          request_id: 'the-request',
        },
      });
    }
    // the fault is in the log under the id the client was given, once per request
    expect(logger.lines).toEqual([
      {
        level: 'error',
        message: 'a fault reached express',
        fields: { request_id: 'the-request', error: 'Error: an edge fault' },
      },
      {
        level: 'error',
        message: 'a fault reached express',
        fields: { request_id: 'the-request', error: 'Error: an edge fault' },
      },
    ]);
  });
});
