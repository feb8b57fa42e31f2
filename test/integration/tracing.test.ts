import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startAutotier, type RunningAutotier } from '../../src/main.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { ReceivedSpan } from '../helpers/received-span.js';
import { TIER_FLEET_TIMEOUTS } from '../helpers/tier-fleet.js';

/** Secrets and prompt text that must appear in no span. */
const CLIENT_KEY = 'sk-client-secret-7d1c0ffee';
const DEPLOYMENT_KEY = 'sk-deployment-secret-42beef';
const PROMPT = 'explain the prompt-marker-9f3a trade-offs of write-ahead logging';

const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';
const CLIENT_TRACEPARENT = `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01`;
const CLIENT_TRACESTATE = 'vendor=abc,other@sys=x1';

/** OTLP span kinds. */
const SERVER = 2;
const CLIENT = 3;
const STATUS_ERROR = 2;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

interface Seen {
  traceparent: string | undefined;
  tracestate: string | undefined;
}

/**
 * The fleet: the classifier model, `a` (the group of SIMPLE..COMPLEX), `c` (EXPERT's group, broken by
 * the continuation test alone) and `b` (every tier's fallback chain).
 */
async function startFleet(): Promise<{
  fleet: SimFleet;
  seen: Record<string, Seen[]>;
  control: { failA: boolean };
}> {
  const control = { failA: false };
  const seen: Record<string, Seen[]> = { classifier: [], a: [], b: [], c: [] };
  const fleet = await createSimulatedFleet({
    backends: [
      { id: 'classifier', models: ['classifier-model'] },
      { id: 'a', models: ['model-a'] },
      { id: 'b', models: ['model-b'] },
      { id: 'c', models: ['model-c'] },
    ],
  });
  for (const id of Object.keys(seen))
    fleet.byId(id).setResponder(({ headers }) => {
      const traceparent = headers['traceparent'];
      const tracestate = headers['tracestate'];
      seen[id]?.push({
        traceparent: typeof traceparent === 'string' ? traceparent : undefined,
        tracestate: typeof tracestate === 'string' ? tracestate : undefined,
      });
      if (id === 'a' && control.failA) return { status: 503, errorMessage: 'overloaded' };
      return id === 'classifier'
        ? { content: JSON.stringify({ complexity: 'COMPLEX', reason: 'scripted', needs_vision: false }) }
        : undefined;
    });
  return { fleet, seen, control };
}

async function writeTable(fleet: SimFleet): Promise<{ path: string; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'autotier-tracing-'));
  const deployment = (id: string, model: string) => ({
    id,
    model,
    base_url: fleet.byId(id).baseUrl,
    context_window: 32768,
    api_key_env: 'TRACING_TEST_DEPLOYMENT_KEY',
    continuation: true,
  });
  const tier = {
    group: ['a'],
    fallback: ['b'],
    timeouts: TIER_FLEET_TIMEOUTS,
    max_tokens: { cap: 64, default: 16 },
  };
  const table = {
    deployments: [
      deployment('classifier', 'classifier-model'),
      deployment('a', 'model-a'),
      deployment('b', 'model-b'),
      deployment('c', 'model-c'),
    ],
    tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: { ...tier, group: ['c'] } },
    classifier: {
      mode: 'cascade',
      deployment: 'classifier',
      gate: 'confidence',
      threshold: 1,
      deadline_ms: 3000,
      cache: { max_entries: 100 },
    },
    api_keys: [{ name: 'tester', sha256: createHash('sha256').update(CLIENT_KEY).digest('hex') }],
  };
  const path = join(folder, 'table.yaml');
  await writeFile(path, stringify(table));
  return { path, folder };
}

async function startApp(input: { table: string; env: Record<string, string> }): Promise<RunningAutotier> {
  return startAutotier({
    argv: ['--table', input.table, '--port', '0', '--host', '127.0.0.1'],
    env: { TRACING_TEST_DEPLOYMENT_KEY: DEPLOYMENT_KEY, AUTOTIER_COUNT_THREADS: '0', ...input.env },
    logger: silentLogger,
  });
}

function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Flushes until the server span of request `requestId` arrived (it ends when the response closed,
 * which may come a moment after the client read the last byte); its children ended before it.
 */
async function serverSpanOf(
  app: RunningAutotier,
  receiver: OtlpReceiver,
  requestId: string,
): Promise<ReceivedSpan> {
  for (let round = 0; round < 500; round += 1) {
    await app.flushTraces();
    const span = receiver.spans.find((item) => item.attributes['autotier.request_id'] === requestId);
    if (span !== undefined) return span;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no server span for request ${requestId}`);
}

/** The spans under `root`, depth first. */
function treeOf(spans: readonly ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const children = spans.filter((span) => span.parentSpanId === root.spanId && span.traceId === root.traceId);
  return children.flatMap((child) => [child, ...treeOf(spans, child)]);
}

function childNamed(spans: readonly ReceivedSpan[], parent: ReceivedSpan, name: string): ReceivedSpan {
  const found = spans.filter((span) => span.parentSpanId === parent.spanId && span.name === name);
  expect(found, `one child ${name} under ${parent.name}`).toHaveLength(1);
  return found[0]!;
}

function parentIdOf(traceparent: string | undefined): { traceId: string; spanId: string } {
  const match = TRACEPARENT.exec(traceparent ?? '');
  expect(match, `a valid traceparent upstream, got ${traceparent}`).not.toBeNull();
  return { traceId: match![1]!, spanId: match![2]! };
}

/** No key, prompt text or Authorization value in any attribute of any span or the resource. */
function expectNoSecrets(spans: readonly ReceivedSpan[]): void {
  const text = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.resource, span.status]));
  for (const secret of [CLIENT_KEY, DEPLOYMENT_KEY, 'prompt-marker-9f3a', 'Bearer'])
    expect(text).not.toContain(secret);
}

describe('OpenTelemetry tracing, exported as OTLP/protobuf to a real receiver', () => {
  let receiver: OtlpReceiver;
  let fleet: SimFleet;
  let seen: Record<string, Seen[]>;
  let control: { failA: boolean };
  let app: RunningAutotier;
  let folder: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    ({ fleet, seen, control } = await startFleet());
    const table = await writeTable(fleet);
    folder = table.folder;
    app = await startApp({
      table: table.path,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'autotier-under-test',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=t%3Dk',
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await fleet.close();
    await receiver.close();
    await rm(folder, { recursive: true, force: true });
  });
  const clearSeen = (): void => {
    for (const list of Object.values(seen)) list.length = 0;
  };

  it('streams: server span under the client traceparent, classify, policy and one attempt that ends with the stream', async () => {
    clearSeen();
    const response = await post(
      app.url,
      {
        model: 'auto',
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 12,
        temperature: 0.5,
      },
      { traceparent: CLIENT_TRACEPARENT, tracestate: CLIENT_TRACESTATE },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('data: [DONE]');
    const requestId = response.headers.get('x-request-id') ?? '';
    const server = await serverSpanOf(app, receiver, requestId);

    expect(server).toMatchObject({
      traceId: CLIENT_TRACE_ID,
      parentSpanId: CLIENT_SPAN_ID,
      name: 'POST /v1/chat/completions',
      kind: SERVER,
      status: { code: 0 },
    });
    expect(server.resource).toMatchObject({ 'service.name': 'autotier-under-test' });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'auto',
      'gen_ai.request.max_tokens': 12,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.request.stream': true,
      'gen_ai.response.model': 'model-a',
      'autotier.tier': 'COMPLEX',
      'autotier.cause': 'llm',
      'autotier.deployment': 'a',
      'autotier.fallback': false,
      'autotier.key_name': 'tester',
    });
    expect(server.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);

    const tree = treeOf(receiver.spans, server);
    const classify = childNamed(tree, server, 'autotier.classify');
    expect(classify.attributes).toMatchObject({ 'autotier.cause': 'llm', 'autotier.complexity': 'COMPLEX' });
    expect(childNamed(tree, classify, 'autotier.classify.cache').attributes['autotier.cache.hit']).toBe(
      false,
    );
    expect(childNamed(tree, classify, 'autotier.classify.local').attributes['autotier.complexity']).toMatch(
      /^[A-Z]+$/,
    );
    const llm = childNamed(tree, classify, 'autotier.classify.llm');
    expect(llm).toMatchObject({ kind: CLIENT, attributes: { 'autotier.deployment': 'classifier' } });
    const policy = childNamed(tree, server, 'autotier.policy');
    expect(policy.attributes).toMatchObject({
      'autotier.tier': 'COMPLEX',
      'autotier.group': ['a'],
      'autotier.fallback_chain': ['b'],
    });

    const attempt = childNamed(tree, server, 'chat model-a');
    expect(attempt).toMatchObject({ kind: CLIENT, status: { code: 0 } });
    expect(attempt.attributes).toMatchObject({
      'autotier.deployment': 'a',
      'autotier.attempt': 1,
      'autotier.reason': 'first',
      'autotier.fallback': false,
      'server.address': '127.0.0.1',
      'server.port': fleet.byId('a').port,
      'http.response.status_code': 200,
      'gen_ai.request.model': 'model-a',
      'gen_ai.response.model': 'model-a',
    });
    // usage and the finish reason come with the stream's last events: the span ended after them
    expect(attempt.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(attempt.attributes['gen_ai.response.finish_reasons']).toEqual([
      expect.stringMatching(/^(stop|length)$/),
    ]);
    expect(attempt.endNs).toBeGreaterThan(attempt.startNs);
    expect(attempt.endNs).toBeLessThanOrEqual(server.endNs);

    // the backend and the classifier got traceparents in the same trace, parented on their spans
    expect(seen['a']).toHaveLength(1);
    expect(parentIdOf(seen['a']?.[0]?.traceparent)).toEqual({
      traceId: CLIENT_TRACE_ID,
      spanId: attempt.spanId,
    });
    expect(seen['a']?.[0]?.tracestate).toBe(CLIENT_TRACESTATE);
    expect(parentIdOf(seen['classifier']?.[0]?.traceparent)).toEqual({
      traceId: CLIENT_TRACE_ID,
      spanId: llm.spanId,
    });
    expectNoSecrets([server, ...tree]);
    expect(receiver.exports[0]?.contentType).toBe('application/x-protobuf');
    expect(receiver.exports[0]?.headers['x-collector-token']).toBe('t=k');
  });

  it('ignores a malformed traceparent: a new trace, no error, and the new trace goes upstream', async () => {
    clearSeen();
    const response = await post(
      app.url,
      { model: 'auto', messages: [{ role: 'user', content: PROMPT }] },
      { traceparent: `00-${'0'.repeat(32)}-${CLIENT_SPAN_ID}-01` },
    );
    expect(response.status).toBe(200);
    await response.text();
    const server = await serverSpanOf(app, receiver, response.headers.get('x-request-id') ?? '');
    expect(server.parentSpanId).toBe('');
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.traceId).not.toBe('0'.repeat(32));
    const tree = treeOf(receiver.spans, server);
    // the same prompt again: the cache decided, and its span says so
    const classify = childNamed(tree, server, 'autotier.classify');
    expect(childNamed(tree, classify, 'autotier.classify.cache').attributes).toMatchObject({
      'autotier.cache.hit': true,
      'autotier.cause': 'llm',
    });
    expect(tree.some((span) => span.name === 'autotier.classify.llm')).toBe(false);
    const attempt = childNamed(tree, server, 'chat model-a');
    expect(parentIdOf(seen['a']?.[0]?.traceparent)).toEqual({
      traceId: server.traceId,
      spanId: attempt.spanId,
    });
    expect(seen['a']?.[0]?.tracestate).toBeUndefined();
  });

  it('falls back: a failed attempt span with its error code, then the fallback attempt that answered', async () => {
    clearSeen();
    control.failA = true;
    const response = await post(
      app.url,
      { model: 'tier:SIMPLE', messages: [{ role: 'user', content: PROMPT }], max_tokens: 8 },
      { traceparent: CLIENT_TRACEPARENT },
    );
    control.failA = false;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { model: string };
    expect(body.model).toBe('model-b');
    const server = await serverSpanOf(app, receiver, response.headers.get('x-request-id') ?? '');
    expect(server.attributes).toMatchObject({
      'gen_ai.request.model': 'tier:SIMPLE',
      'gen_ai.response.model': 'model-b',
      'autotier.deployment': 'b',
      'autotier.fallback': true,
      'http.response.status_code': 200,
    });
    const tree = treeOf(receiver.spans, server);
    // a 503 is retried once on `a` before the fallback chain (retry in place), then `b` answers
    const attempts = tree
      .filter((span) => span.kind === CLIENT && span.parentSpanId === server.spanId)
      .sort(
        (one, other) =>
          Number(one.attributes['autotier.attempt']) - Number(other.attributes['autotier.attempt']),
      );
    expect(attempts.map((span) => [span.name, span.attributes['autotier.reason']])).toEqual([
      ['chat model-a', 'first'],
      ['chat model-a', 'retry_in_place'],
      ['chat model-b', 'fallback'],
    ]);
    expect(server.attributes['autotier.attempts']).toBe(3);
    const failures = attempts.slice(0, 2);
    const answered = attempts[2]!;
    for (const [index, failed] of failures.entries()) {
      expect(failed).toMatchObject({ kind: CLIENT, status: { code: STATUS_ERROR } });
      expect(failed.attributes).toMatchObject({
        'autotier.attempt': index + 1,
        'http.response.status_code': 503,
      });
      expect(failed.status.message).toMatch(/^UPSTREAM_[A-Z_]+$/);
      expect(failed.attributes['error.type']).toBe(failed.status.message);
      expect(parentIdOf(seen['a']?.[index]?.traceparent)).toEqual({
        traceId: CLIENT_TRACE_ID,
        spanId: failed.spanId,
      });
    }
    expect(answered).toMatchObject({ kind: CLIENT, status: { code: 0 } });
    expect(answered.attributes).toMatchObject({
      'autotier.attempt': 3,
      'autotier.fallback': true,
      'autotier.previous_outcome': failures[1]!.status.message,
      'gen_ai.response.model': 'model-b',
    });
    expect(answered.startNs).toBeGreaterThanOrEqual(failures[1]!.endNs);
    expect(parentIdOf(seen['b']?.[0]?.traceparent)).toEqual({
      traceId: CLIENT_TRACE_ID,
      spanId: answered.spanId,
    });
    expectNoSecrets([server, ...tree]);
  });

  it('marks a rejected request: the 401 has its code on the span, status left unset (a client mistake)', async () => {
    // probes are never traced
    const health = await fetch(`${app.url}/health`, { headers: { traceparent: CLIENT_TRACEPARENT } });
    expect(health.status).toBe(200);
    await health.text();
    const response = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-wrong-key-123' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(response.status).toBe(401);
    await response.text();
    const server = await serverSpanOf(app, receiver, response.headers.get('x-request-id') ?? '');
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 401,
      'autotier.error.code': 'UNAUTHORIZED',
    });
    expect(server.status.code).toBe(0);
    expect(JSON.stringify(server.attributes)).not.toContain('sk-wrong-key-123');
    expect(receiver.spans.some((span) => span.name.includes('/health'))).toBe(false);
  });

  it('continues a stream cut mid-way on the fallback: the cut attempt fails, the continuation leg ends with the stream', async () => {
    clearSeen();
    fleet.byId('c').setFault({ name: 'cut_mid_stream', params: { after: 5 } });
    const response = await post(
      app.url,
      {
        model: 'tier:EXPERT',
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 16,
      },
      { traceparent: CLIENT_TRACEPARENT },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    fleet.byId('c').setFault(null);
    expect(text).toContain('data: [DONE]');
    const server = await serverSpanOf(app, receiver, response.headers.get('x-request-id') ?? '');
    const tree = treeOf(receiver.spans, server);
    const cut = childNamed(tree, server, 'chat model-c');
    expect(cut).toMatchObject({
      kind: CLIENT,
      status: { code: STATUS_ERROR, message: 'UPSTREAM_STREAM_CUT' },
    });
    const leg = childNamed(tree, server, 'chat model-b');
    expect(leg).toMatchObject({ kind: CLIENT, status: { code: 0 } });
    expect(leg.attributes).toMatchObject({ 'autotier.reason': 'continuation', 'autotier.attempt': 2 });
    expect(leg.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(leg.startNs).toBeGreaterThanOrEqual(cut.endNs);
    expect(leg.endNs).toBeLessThanOrEqual(server.endNs);
    expect(server.attributes).toMatchObject({
      'autotier.continuations': 1,
      'http.response.status_code': 200,
    });
    expect(server.status.code).toBe(0);
    expect(parentIdOf(seen['b']?.[0]?.traceparent)).toEqual({ traceId: CLIENT_TRACE_ID, spanId: leg.spanId });
    expectNoSecrets([server, ...tree]);
  });
});

describe('OpenTelemetry tracing over OTLP/JSON, flushed by the graceful shutdown', () => {
  it('exports JSON when asked, and a close() exports the spans still waiting in the batch', async () => {
    const receiver = await startOtlpReceiver();
    const { fleet } = await startFleet();
    const table = await writeTable(fleet);
    try {
      const app = await startApp({
        table: table.path,
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        },
      });
      const response = await post(app.url, {
        model: 'tier:SIMPLE',
        messages: [{ role: 'user', content: PROMPT }],
      });
      expect(response.status).toBe(200);
      await response.text();
      // no flush: the batch waits 5 s, and the drain's end exports it
      await app.close();
      expect(receiver.exports.length).toBeGreaterThan(0);
      expect(receiver.exports.every((item) => item.contentType.startsWith('application/json'))).toBe(true);
      const server = receiver.spans.find((span) => span.name === 'POST /v1/chat/completions');
      expect(server).toMatchObject({ kind: SERVER, attributes: { 'http.response.status_code': 200 } });
      expect(server?.resource['service.name']).toBe('autotier');
      const attempt = receiver.spans.find((span) => span.name === 'chat model-a');
      expect(attempt?.parentSpanId).toBe(server?.spanId);
    } finally {
      await fleet.close();
      await receiver.close();
      await rm(table.folder, { recursive: true, force: true });
    }
  });
});

describe('tracing off (no OTEL_* variables)', () => {
  let receiver: OtlpReceiver;
  let fleet: SimFleet;
  let seen: Record<string, Seen[]>;
  let app: RunningAutotier;
  let folder: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    ({ fleet, seen } = await startFleet());
    const table = await writeTable(fleet);
    folder = table.folder;
    app = await startApp({ table: table.path, env: {} });
  });
  afterAll(async () => {
    await app.close();
    await fleet.close();
    await receiver.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('exports nothing and invents no traceparent', async () => {
    const response = await post(app.url, { model: 'auto', messages: [{ role: 'user', content: PROMPT }] });
    expect(response.status).toBe(200);
    await response.text();
    await app.flushTraces();
    expect(seen['a']).toHaveLength(1);
    expect(seen['a']?.[0]).toEqual({ traceparent: undefined, tracestate: undefined });
    expect(seen['classifier']?.[0]?.traceparent).toBeUndefined();
    expect(receiver.exports).toHaveLength(0);
  });

  it("passes a client's valid traceparent and tracestate upstream unchanged, and drops a malformed one", async () => {
    for (const list of Object.values(seen)) list.length = 0;
    const passed = await post(
      app.url,
      { model: 'tier:SIMPLE', messages: [{ role: 'user', content: PROMPT }] },
      { traceparent: CLIENT_TRACEPARENT, tracestate: CLIENT_TRACESTATE },
    );
    expect(passed.status).toBe(200);
    await passed.text();
    expect(seen['a']?.[0]).toEqual({ traceparent: CLIENT_TRACEPARENT, tracestate: CLIENT_TRACESTATE });
    for (const malformed of [
      '00-xyz',
      `01-${CLIENT_TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01`,
    ]) {
      const dropped = await post(
        app.url,
        { model: 'tier:SIMPLE', messages: [{ role: 'user', content: PROMPT }] },
        { traceparent: malformed, tracestate: CLIENT_TRACESTATE },
      );
      expect(dropped.status).toBe(200);
      await dropped.text();
      expect(seen['a']?.at(-1)).toEqual({ traceparent: undefined, tracestate: undefined });
    }
    expect(receiver.exports).toHaveLength(0);
  });
});
