import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { createTableReloader } from '../../src/config/watch-routing-table.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { HELLO, postChat, startStack, type Stack } from '../helpers/start-stack.js';

/** Writes a file the way a deploy should: a temporary file renamed over the old one. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** Wall time moved to a chosen instant but still ticking, so timers and deadlines behave. */
function clockAt(iso: string): { now: () => number; set(iso: string): void } {
  let offset = Date.parse(iso) - Date.now();
  return { now: () => Date.now() + offset, set: (next) => (offset = Date.parse(next) - Date.now()) };
}

const FLEET = [
  { id: 'mlx-8b', models: ['qwen3-8b'], contextWindow: 8192 },
  { id: 'mlx-30b', models: ['qwen3-30b'], contextWindow: 32768 },
  { id: 'cuda-30b', models: ['qwen3-30b'], contextWindow: 65536 },
  { id: 'vl', models: ['qwen3-vl'], contextWindow: 32768 },
];

function fleetTable(urls: Record<string, string>): RoutingTableInput {
  const timeouts = { connect_ms: 500, ttft_ms: 2000, idle_ms: 2000, total_ms: 5000 };
  const deployment = (id: string, model: string, context_window: number) => ({
    id,
    model,
    base_url: urls[id] ?? '',
    context_window,
  });
  return {
    deployments: [
      deployment('mlx-8b', 'qwen3-8b', 8192),
      deployment('mlx-30b', 'qwen3-30b', 32768),
      {
        ...deployment('cuda-30b', 'qwen3-30b', 65536),
        availability: {
          timezone: 'Europe/Berlin',
          windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '07:00', end: '22:00' }],
        },
      },
      { ...deployment('vl', 'qwen3-vl', 32768), vision: true },
    ],
    tiers: {
      SIMPLE: { group: ['mlx-8b'], fallback: ['mlx-30b'], timeouts, max_tokens: { cap: 512, default: 256 } },
      MODERATE: { group: ['mlx-30b'], timeouts, max_tokens: { cap: 512, default: 256 } },
      COMPLEX: {
        group: ['cuda-30b'],
        fallback: ['mlx-30b'],
        timeouts,
        max_tokens: { cap: 512, default: 256 },
      },
      EXPERT: {
        group: ['cuda-30b'],
        fallback: ['mlx-30b'],
        timeouts,
        max_tokens: { cap: 512, default: 256 },
      },
      VISION: { group: ['vl'], timeouts },
    },
    sessions: { window_minutes: 30 },
  };
}

async function explain(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/v1/route`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('tier rules through the HTTP API', () => {
  let stack: Stack;
  const clock = clockAt('2026-12-01T10:00:00Z'); // Tuesday 11:00 in Berlin
  beforeAll(async () => {
    stack = await startStack({ backends: FLEET, clock, table: fleetTable });
  });
  afterAll(() => stack.close());

  it('moves a prompt too long for the SIMPLE deployment up a tier, and explains it', async () => {
    const long = [{ role: 'user', content: 'lorem ipsum dolor sit amet '.repeat(2000) }];
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: long });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-tier')).toBe('MODERATE');
    expect(response.headers.get('x-autotier-reason')).toContain('context_length:SIMPLE->MODERATE');
    const decision = await explain(stack.url, { model: 'tier:SIMPLE', messages: long });
    expect(decision['tier']).toBe('MODERATE');
    expect(decision['prompt_tokens']).toBeGreaterThan(8192);
    expect(decision['rules']).toContainEqual(
      expect.objectContaining({ rule: 'context_length', from: 'SIMPLE', to: 'MODERATE' }),
    );
    expect(decision['deployments']).toEqual(['mlx-30b']);
  });

  it('answers context_length_exceeded with the numbers when nothing fits', async () => {
    const huge = [{ role: 'user', content: 'lorem ipsum dolor sit amet '.repeat(20_000) }];
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: huge });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('context_length_exceeded');
    expect(body.error.message).toMatch(/\d+ tokens exceed the largest context window of 65536/);
  });

  it('sends a request with an image to the vision deployment', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-deployment')).toBe('vl');
    const decision = await explain(stack.url, { model: 'tier:SIMPLE', messages });
    expect(decision['tier']).toBe('VISION');
    expect(decision['rules']).toContainEqual(
      expect.objectContaining({ rule: 'vision', from: 'EXPERT', to: 'VISION' }),
    );
  });

  it('falls from the CUDA deployment to MLX at 23:00, and back in the morning', async () => {
    clock.set('2026-12-01T22:00:00Z'); // 23:00 in Berlin
    const night = await postChat(stack.url, { model: 'tier:COMPLEX', messages: HELLO });
    expect(night.headers.get('x-autotier-deployment')).toBe('mlx-30b');
    expect(night.headers.get('x-autotier-tier')).toBe('COMPLEX');
    const decision = await explain(stack.url, { model: 'tier:COMPLEX', messages: HELLO });
    expect(decision['deployments']).toEqual(['mlx-30b']);
    expect(decision['rules']).toContainEqual(
      expect.objectContaining({
        rule: 'availability',
        reason: expect.stringContaining('cuda-30b') as unknown,
      }),
    );
    clock.set('2026-12-02T07:00:00Z'); // 08:00
    const morning = await postChat(stack.url, { model: 'tier:COMPLEX', messages: HELLO });
    expect(morning.headers.get('x-autotier-deployment')).toBe('cuda-30b');
  });

  it('never lets a session drop below the highest tier it used', async () => {
    const session = { 'x-session-id': 'conversation-1' };
    const hard = await postChat(stack.url, { model: 'tier:EXPERT', messages: HELLO }, session);
    expect(hard.headers.get('x-autotier-tier')).toBe('EXPERT');
    const easy = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO }, session);
    expect(easy.headers.get('x-autotier-tier')).toBe('EXPERT');
    expect(easy.headers.get('x-autotier-reason')).toContain('session:SIMPLE->EXPERT');
    const decision = await explain(stack.url, { model: 'tier:SIMPLE', messages: HELLO }, session);
    expect(decision['rules']).toContainEqual(
      expect.objectContaining({ rule: 'session', from: 'SIMPLE', to: 'EXPERT' }),
    );
    const other = await postChat(
      stack.url,
      { model: 'tier:SIMPLE', messages: HELLO },
      { 'x-session-id': 'conversation-2' },
    );
    expect(other.headers.get('x-autotier-tier')).toBe('SIMPLE');
  });

  it('raises the floor with x-autotier-min-tier and rejects a bad value', async () => {
    const raised = await postChat(
      stack.url,
      { model: 'tier:SIMPLE', messages: HELLO },
      { 'x-autotier-min-tier': 'moderate' },
    );
    expect(raised.headers.get('x-autotier-tier')).toBe('MODERATE');
    const bad = await postChat(
      stack.url,
      { model: 'tier:SIMPLE', messages: HELLO },
      { 'x-autotier-min-tier': 'HUGE' },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('x-autotier-min-tier');
  });
});

describe('overrides disabled and hot reload', () => {
  let stack: Stack;
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-reload-'));
    stack = await startStack({
      backends: FLEET,
      table: fleetTable,
      classifier: () => createLocalClassifier({ mode: 'heuristic' }),
    });
  });
  afterAll(async () => {
    await stack.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps the old table serving when a reload is invalid, and takes a valid one', async () => {
    const path = join(folder, 'table.yaml');
    const urls = {
      'mlx-8b': stack.sim('mlx-8b').baseUrl,
      'mlx-30b': stack.sim('mlx-30b').baseUrl,
      'cuda-30b': stack.sim('cuda-30b').baseUrl,
      vl: stack.sim('vl').baseUrl,
    };
    const rejected: string[] = [];
    const reloader = createTableReloader({
      path,
      clock: { now: () => Date.now() },
      current: () => stack.service.currentTable(),
      onLoad: (table) => stack.service.setTable(table),
      onReject: (rejection) => rejected.push(rejection.message),
      debounceMs: 20,
    });
    try {
      const valid = fleetTable(urls);
      await writeAtomically(
        path,
        stringify({
          ...valid,
          tiers: { ...valid.tiers, SIMPLE: { ...valid.tiers.SIMPLE, group: ['mlx-30b'] } },
        }),
      );
      expect(await reloader.reload()).toBe(true);
      expect(
        (await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO })).headers.get(
          'x-autotier-deployment',
        ),
      ).toBe('mlx-30b');
      await writeAtomically(
        path,
        stringify({ ...valid, tiers: { ...valid.tiers, SIMPLE: { group: ['ghost'], timeout: 5 } } }),
      );
      expect(await reloader.reload()).toBe(false);
      const rejection = rejected.find((message) => message.includes('tiers.SIMPLE.group.0'));
      expect(rejection).toContain('timeout');
      expect(
        (await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO })).headers.get(
          'x-autotier-deployment',
        ),
      ).toBe('mlx-30b');
      await writeAtomically(path, stringify(valid));
      await expect
        .poll(
          async () =>
            (await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO })).headers.get(
              'x-autotier-deployment',
            ),
          { timeout: 3000 },
        )
        .toBe('mlx-8b');
    } finally {
      reloader.close();
    }
  });

  it('refuses a tier alias, a model name and x-autotier-min-tier with 403 when overrides are disabled', async () => {
    const table = fleetTable({
      'mlx-8b': stack.sim('mlx-8b').baseUrl,
      'mlx-30b': stack.sim('mlx-30b').baseUrl,
      'cuda-30b': stack.sim('cuda-30b').baseUrl,
      vl: stack.sim('vl').baseUrl,
    });
    stack.service.setTable(stack.loadTable({ ...table, overrides: { allow_client: false } }));
    const refusals = [
      { body: { model: 'tier:EXPERT', messages: HELLO }, headers: {}, asked: 'model "tier:EXPERT"' },
      { body: { model: 'qwen3-30b', messages: HELLO }, headers: {}, asked: 'model "qwen3-30b"' },
      {
        body: { model: 'auto', messages: HELLO },
        headers: { 'x-autotier-min-tier': 'expert' },
        asked: 'x-autotier-min-tier EXPERT',
      },
    ];
    for (const { body, headers, asked } of refusals) {
      const response = await postChat(stack.url, body, headers);
      const { error } = (await response.json()) as { error: { code: string; message: string; type: string } };
      expect(response.status, asked).toBe(403);
      expect(error.code).toBe('override_not_allowed');
      expect(error.type).toBe('permission_error');
      expect(error.message).toContain(`${asked} refused`);
      expect(error.message).toContain('overrides.allow_client: false');
    }
    const response = await postChat(stack.url, { model: 'auto', messages: HELLO });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-classifier')).toBe('heuristic');
  });
});
