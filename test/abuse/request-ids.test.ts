import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService, type Service } from '../../src/build-service.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { hashKey } from '../../src/policy/api-keys.js';
import {
  FAST_TIMEOUTS,
  HELLO,
  postChat,
  sharedTokenCounter,
  toTable,
  unreachableClassifier,
} from '../helpers/start-stack.js';

/**
 * A tenant sets request ids; the fleet's logs must only ever hold autotier's, so one tenant cannot
 * write ids into them that look like another's. The client's id is kept, bounded, beside autotier's
 * in autotier's own log.
 */
const CHUNK = {
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }],
};

/** An upstream that records the headers of every call and answers one short stream. */
function startRecordingUpstream(): Promise<{ server: Server; url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: ${JSON.stringify(CHUNK)}\n\ndata: [DONE]\n\n`);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }),
    ),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids between a client, autotier and the fleet', () => {
  let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
  let service: Service;
  let url: string;
  const logger = createRecordingLogger();
  beforeAll(async () => {
    upstream = await startRecordingUpstream();
    const tier = { group: ['fleet'], timeouts: FAST_TIMEOUTS };
    service = buildService({
      table: toTable({
        deployments: [
          { id: 'fleet', model: 'fleet-model', base_url: `${upstream.url}/v1`, context_window: 32768 },
        ],
        tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        api_keys: [{ name: 'tenant-a', sha256: hashKey('sk-a') }],
      }),
      logger,
      tokenCounter: sharedTokenCounter(),
      createClassifier: unreachableClassifier,
    });
    ({ url } = await service.listen(0));
  });
  afterAll(async () => {
    await service.close();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  /** Sends a chat with `headers`; the headers the upstream saw, autotier's id and the request's log line. */
  async function send(headers: Record<string, string>) {
    const before = upstream.seen.length;
    const response = await postChat(
      url,
      { model: 'fleet-model', messages: HELLO },
      { authorization: 'Bearer sk-a', ...headers },
    );
    await response.text();
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id') ?? '';
    const line = logger.lines.find(
      (entry) => entry.message === 'request' && entry.fields['request_id'] === requestId,
    );
    return { seen: upstream.seen.slice(before), requestId, line, response };
  }

  it.each([
    ['x-request-id', 'tenant-b-7f3a91'],
    ['x-request-id', 'req:2024-06-01T12:00:00Z.42'],
    ['x-correlation-id', 'tenant-b-corr-1'],
    ['request-id', 'tenant-b-plain-1'],
    ['x-client-request-id', 'tenant-b-client-1'],
  ])('sends autotier its own id upstream, never the client %s', async (name, value) => {
    const { seen, requestId } = await send({ [name]: value });
    expect(requestId).toMatch(UUID);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.['x-request-id']).toBe(requestId);
    expect(JSON.stringify(seen[0])).not.toContain(value);
  });

  it("keeps the client's id beside autotier's in the log and echoes it as x-client-request-id", async () => {
    const { requestId, line, response } = await send({ 'x-request-id': 'tenant-b-7f3a91' });
    expect(line?.fields).toMatchObject({ request_id: requestId, client_request_id: 'tenant-b-7f3a91' });
    expect(response.headers.get('x-client-request-id')).toBe('tenant-b-7f3a91');
  });

  it('keeps a hostile client id bounded and printable in the log', async () => {
    const long = `id-${'x'.repeat(10_000)}`;
    const { line: longLine } = await send({ 'x-request-id': long });
    const kept = String(longLine?.fields['client_request_id']);
    expect(kept.length).toBeLessThanOrEqual(128);
    expect(long.startsWith(kept)).toBe(true);
    const { line: oddLine, seen } = await send({ 'x-request-id': 'a\u00e9b c\t"{}<script>' });
    expect(oddLine?.fields['client_request_id']).toMatch(/^[\x21-\x7e]*$/);
    expect(seen[0]?.['x-request-id']).toMatch(UUID);
  });

  it('answers a client without an id with a fresh one, different on every request', async () => {
    const first = await send({});
    const second = await send({});
    expect(first.requestId).toMatch(UUID);
    expect(second.requestId).not.toBe(first.requestId);
    expect(first.line?.fields['client_request_id']).toBeUndefined();
  });
});
