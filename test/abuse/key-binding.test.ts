import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { FAST_TIMEOUTS, HELLO, postChat, startStack, type Stack } from '../helpers/start-stack.js';

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const IMAGE = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ],
  },
];

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

describe('an API key binds on every path', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'small', models: ['small-model'] },
        { id: 'big', models: ['big-model'] },
        { id: 'vl', models: ['vl-model'] },
      ],
      table: (urls) => {
        const tier = (group: string[]) => ({
          group,
          timeouts: FAST_TIMEOUTS,
          max_tokens: { cap: 1024, default: 64 },
        });
        const deployment = (id: string, model: string, vision = false) => ({
          id,
          model,
          base_url: urls[id] ?? '',
          context_window: 32768,
          vision,
        });
        return {
          deployments: [
            deployment('small', 'small-model'),
            deployment('big', 'big-model'),
            deployment('vl', 'vl-model', true),
            { ...deployment('dead-a', 'dead-a-model'), base_url: 'http://127.0.0.1:1/v1' },
            { ...deployment('dead-b', 'dead-b-model'), base_url: 'http://127.0.0.1:1/v1' },
          ],
          tiers: {
            SIMPLE: tier(['small']),
            MODERATE: tier(['small']),
            COMPLEX: tier(['big']),
            EXPERT: tier(['big']),
            VISION: tier(['vl']),
          },
          api_keys: [
            { name: 'limited', sha256: hashKey('sk-limited'), tiers: ['SIMPLE', 'MODERATE'] },
            { name: 'seer', sha256: hashKey('sk-seer'), tiers: ['SIMPLE', 'VISION'] },
            {
              name: 'thrifty',
              sha256: hashKey('sk-thrifty'),
              budget: { tokens: 2000, period: 'day', timezone: 'UTC' },
            },
            { name: 'prober', sha256: hashKey('sk-prober'), rpm: 2 },
            { name: 'plain', sha256: hashKey('sk-plain') },
            { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
          ],
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('refuses a served model or a deployment id outside the key tiers, naming the tier', async () => {
    for (const model of ['big-model', 'big']) {
      const refused = await errorOf(
        await postChat(stack.url, { model, messages: HELLO }, bearer('sk-limited')),
      );
      expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
      expect(refused.message).toContain('tier COMPLEX, EXPERT');
      expect(stack.sim('big').stats().requests).toBe(0);
    }
    const allowed = await postChat(
      stack.url,
      { model: 'small-model', messages: HELLO },
      bearer('sk-limited'),
    );
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('x-autotier-deployment')).toBe('small');
  });

  it('refuses a minimum tier header above the key tiers', async () => {
    const refused = await errorOf(
      await postChat(
        stack.url,
        { model: 'tier:SIMPLE', messages: HELLO },
        { ...bearer('sk-limited'), 'x-autotier-min-tier': 'EXPERT' },
      ),
    );
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
    expect(refused.message).toContain('tier EXPERT');
  });

  it('sends images only for a key that may use VISION', async () => {
    const refused = await errorOf(
      await postChat(stack.url, { model: 'tier:SIMPLE', messages: IMAGE }, bearer('sk-limited')),
    );
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
    expect(refused.message).toContain('VISION');
    const seen = await postChat(stack.url, { model: 'tier:SIMPLE', messages: IMAGE }, bearer('sk-seer'));
    expect(seen.status).toBe(200);
    expect(seen.headers.get('x-autotier-deployment')).toBe('vl');
  });

  it('reserves max_tokens against the budget, so concurrent requests cannot overshoot it', async () => {
    const request = { model: 'tier:SIMPLE', messages: HELLO, max_tokens: 600 };
    const headers = bearer('sk-thrifty');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => postChat(stack.url, request, headers)),
    );
    const statuses = responses.map((response) => response.status);
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      usage?: { total_tokens: number };
    }[];
    // each request reserves its prompt (under 10 tokens) plus 600: three fit in 2,000
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    const used = bodies.reduce((sum, body) => sum + (body.usage?.total_tokens ?? 0), 0);
    expect(used).toBeLessThanOrEqual(2000);
    // what is left (2,000 less the three answers) takes one more 100-token request, not two
    const small = { ...request, max_tokens: 100 };
    expect((await postChat(stack.url, small, headers)).status).toBe(200);
    expect((await postChat(stack.url, small, headers)).status).toBe(429);
  });

  it('counts /v1/route against the key RPM', async () => {
    const route = () =>
      fetch(`${stack.url}/v1/route`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer('sk-prober') },
        body: JSON.stringify({ model: 'tier:SIMPLE', messages: HELLO }),
      });
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await route();
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('shows internal addresses in errors to admin keys only', async () => {
    // each dead deployment is asked once: after its first failure it cools down
    const failed = async (model: string, secret: string) =>
      errorOf(await postChat(stack.url, { model, messages: HELLO }, bearer(secret)));
    const plain = await failed('dead-a-model', 'sk-plain');
    expect(plain.status).toBeGreaterThanOrEqual(502);
    expect(plain.message).toContain('ECONNREFUSED');
    expect(plain.message).not.toContain('127.0.0.1');
    expect((await failed('dead-b-model', 'sk-ops')).message).toContain('127.0.0.1:1');
  });
});
