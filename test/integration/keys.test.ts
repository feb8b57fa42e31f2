import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { HELLO, postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe('API keys through the HTTP API', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      classifier: () => createLocalClassifier({ mode: 'heuristic' }),
      table: (urls) => ({
        ...simpleTable({ urls, group: ['a'] }),
        api_keys: [
          {
            name: 'limited',
            sha256: hashKey('sk-limited'),
            rpm: 3,
            tiers: ['SIMPLE', 'MODERATE'],
            allow_overrides: true,
          },
          { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
          { name: 'routed', sha256: hashKey('sk-routed'), allow_overrides: false },
        ],
      }),
    });
  });
  afterAll(() => stack.close());

  it('answers 401 without a key and with an unknown key', async () => {
    expect((await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO })).status).toBe(401);
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO }, bearer('sk-nope'));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
  });

  it('answers 403 for a tier the key may not use', async () => {
    const response = await postChat(
      stack.url,
      { model: 'tier:EXPERT', messages: HELLO },
      bearer('sk-limited'),
    );
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'may not use tier EXPERT',
    );
  });

  it('answers 403 override_not_allowed when a key without overrides names a tier, a model or a minimum tier', async () => {
    const refusals = [
      { body: { model: 'tier:SIMPLE', messages: HELLO }, headers: {}, asked: 'model "tier:SIMPLE"' },
      { body: { model: 'sim-model', messages: HELLO }, headers: {}, asked: 'model "sim-model"' },
      {
        body: { model: 'auto', messages: HELLO },
        headers: { 'x-autotier-min-tier': 'SIMPLE' },
        asked: 'x-autotier-min-tier SIMPLE',
      },
    ];
    for (const { body, headers, asked } of refusals) {
      const response = await postChat(stack.url, body, { ...headers, ...bearer('sk-routed') });
      const { error } = (await response.json()) as {
        error: { code: string; message: string; param: string };
      };
      expect(response.status, asked).toBe(403);
      expect(error.code).toBe('override_not_allowed');
      expect(error.message).toContain(`${asked} refused`);
      expect(error.message).toContain('key routed (allow_overrides: false)');
    }
    const routed = await postChat(stack.url, { model: 'auto', messages: HELLO }, bearer('sk-routed'));
    expect(routed.status).toBe(200);
    await routed.arrayBuffer();
  });

  it('answers 429 with Retry-After past the key RPM', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let index = 0; index < 4; index += 1) {
      const response = await postChat(
        stack.url,
        { model: 'tier:SIMPLE', messages: HELLO },
        bearer('sk-limited'),
      );
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
      await response.arrayBuffer();
    }
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(2);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('keeps /metrics and /autotier/state for the admin key', async () => {
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${stack.url}/metrics`, { headers: bearer('sk-limited') })).status).toBe(403);
    expect((await fetch(`${stack.url}/metrics`, { headers: bearer('sk-ops') })).status).toBe(200);
    const state = (await (
      await fetch(`${stack.url}/autotier/state`, { headers: bearer('sk-ops') })
    ).json()) as { deployments: { id: string }[] };
    expect(state.deployments.map((deployment) => deployment.id)).toEqual(['a']);
  });

  it('logs the key name and never the key', () => {
    const lines = JSON.stringify(stack.logger.lines);
    expect(lines).toContain('"key":"limited"');
    expect(lines).not.toContain('sk-limited');
  });
});
