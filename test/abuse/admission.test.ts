import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { createPeriodClock } from '../../src/shared/period-clock.js';
import { systemClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import type { ResponderRequest } from '../../sim/types.js';
import { startStack, toSseData, type Stack } from '../helpers/start-stack.js';

/** What the fleet reports for a prompt with a video part: its frames, which no text estimate sees. */
const VIDEO_PROMPT_TOKENS = 15_000;
const WINDOW = 32_768;
const BUDGET = 20_000;
const TIMEOUTS = { connect_ms: 5000, ttft_ms: 5000, idle_ms: 5000, total_ms: 20_000 };

/** Keys by name: a 20,000-token daily budget unless given other limits. */
const KEYS: Record<string, Record<string, unknown>> = {
  legacy: {},
  'best-of': {},
  'legacy-fits': {},
  video: {},
  'video-roomy': { budget: { tokens: 100_000, period: 'day', timezone: 'UTC' } },
  'video-stream': { budget: { tokens: 100_000, period: 'day', timezone: 'UTC' } },
  'video-cut': { budget: { tokens: 100_000, period: 'day', timezone: 'UTC' } },
  parts: { budget: { tokens: 1_000_000, period: 'day', timezone: 'UTC' } },
  'chat-n': {},
  tools: { budget: { tokens: 5_000, period: 'day', timezone: 'UTC' } },
  responses: {},
  'responses-usage': {},
  'responses-native': {},
  embed: {},
  'embed-usage': {},
  crowd: {},
  'crowd-chat': { budget: { tokens: 100_000, period: 'day', timezone: 'UTC' } },
  'tpm-only': { tpm: 5_000 },
};

const store = createMemoryStateStore({ clock: systemClock });
const periods = createPeriodClock();

/** Tokens the key's budget holds for today: reservations still open plus what was settled. */
async function spent(name: string): Promise<number> {
  const decision = await store.consumePeriod({
    key: `key:${name}:budget`,
    period: periods.toPeriodId({ timezone: 'UTC', kind: 'day', now: systemClock.now() }),
    amount: 0,
    limit: Number.MAX_SAFE_INTEGER,
    ttlMs: 26 * 3_600_000,
    enforce: false,
  });
  return decision.total;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens?: number;
  total_tokens: number;
}
interface Answer {
  status: number;
  body: {
    usage?: Usage;
    choices?: unknown[];
    error?: { code: string; message: string; param: string | null };
  };
}

const isHeavy = (request: ResponderRequest): boolean => {
  const text = JSON.stringify(request.body);
  return text.includes('video_url') || text.includes('HEAVY-CONTEXT');
};

/** The fleet's usage for a heavy prompt: the video's frames, or a context the test marks as heavy. */
const heavyReport = (request: ResponderRequest) =>
  isHeavy(request) ? { promptTokens: VIDEO_PROMPT_TOKENS } : undefined;

const video = (index: number) => [
  {
    role: 'user',
    content: [
      { type: 'text', text: `what happens in clip ${index}?` },
      { type: 'video_url', video_url: { url: `https://example.com/clip-${index}.mp4` } },
    ],
  },
];

describe('admission bounds what a request can spend', () => {
  let stack: Stack;
  const post = async (path: string, body: unknown, key: string): Promise<Answer> => {
    const response = await fetch(`${stack.url}/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer sk-${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  const requests = (): number => {
    const stats = stack.sim('gen').stats();
    return stats.chatRequests + stats.completionRequests + stats.responsesRequests;
  };

  beforeAll(async () => {
    stack = await startStack({
      store,
      backends: [
        {
          id: 'gen',
          models: ['gen-model'],
          contextWindow: WINDOW,
          responder: heavyReport,
        },
        {
          id: 'slow',
          models: ['slow-model'],
          contextWindow: WINDOW,
          latency: { tokensPerSecond: 20 },
          responder: heavyReport,
        },
        { id: 'embed', models: ['embed-model'], embedding: { dimensions: 8 } },
      ],
      table: (urls) => {
        const tier = { group: ['gen'], timeouts: TIMEOUTS, max_tokens: { cap: 30_000, default: 256 } };
        return {
          deployments: [
            { id: 'gen', model: 'gen-model', base_url: urls['gen'] ?? '', context_window: WINDOW },
            {
              id: 'slow',
              model: 'slow-model',
              base_url: urls['slow'] ?? '',
              context_window: WINDOW,
              responses: true,
            },
            {
              id: 'embed',
              kind: 'embedding' as const,
              model: 'embed-model',
              base_url: urls['embed'] ?? '',
              context_window: 8192,
            },
          ],
          tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: { ...tier, group: ['slow'] } },
          embeddings: { group: ['embed'], timeouts: TIMEOUTS },
          api_keys: Object.entries(KEYS).map(([name, limits]) => ({
            name,
            sha256: hashKey(`sk-${name}`),
            ...('tpm' in limits ? {} : { budget: { tokens: BUDGET, period: 'day', timezone: 'UTC' } }),
            ...limits,
          })),
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('refuses a legacy completion whose prompts x n x max_tokens exceed the budget, before any upstream call', async () => {
    const before = requests();
    const prompts = Array.from({ length: 50 }, (_, index) => `def function_${index}(`);
    const answer = await post(
      '/completions',
      { model: 'auto', prompt: prompts, n: 16, max_tokens: 1000 },
      'legacy',
    );
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('insufficient_quota');
    expect(answer.body.error?.message).toContain('800000');
    expect(requests()).toBe(before);
    expect(await spent('legacy')).toBe(0);
  });

  it('counts best_of as the sequences a legacy completion generates', async () => {
    const before = requests();
    const answer = await post(
      '/completions',
      { model: 'auto', prompt: ['a', 'b'], n: 1, best_of: 16, max_tokens: 1000 },
      'best-of',
    );
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('insufficient_quota');
    expect(requests()).toBe(before);
  });

  it('settles a multi-prompt completion on what the deployment reports: every prompt, n choices each', async () => {
    const prompts = Array.from({ length: 5 }, (_, index) => `print(${index}`);
    const answer = await post(
      '/completions',
      { model: 'auto', prompt: prompts, n: 2, max_tokens: 100 },
      'legacy-fits',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.choices).toHaveLength(10);
    expect(answer.body.usage?.completion_tokens).toBe(1000);
    await vi.waitFor(async () => expect(await spent('legacy-fits')).toBe(answer.body.usage?.total_tokens));
  });

  it('refuses chats with a video part the estimator cannot count when the window could exceed the budget', async () => {
    const before = requests();
    const statuses: number[] = [];
    for (let index = 0; index < 25; index += 1)
      statuses.push(
        (await post('/chat/completions', { model: 'tier:SIMPLE', messages: video(index) }, 'video')).status,
      );
    expect(statuses.filter((status) => status === 200)).toHaveLength(0);
    expect(requests()).toBe(before);
    expect(await spent('video')).toBeLessThanOrEqual(BUDGET);
  });

  it('books the prompt tokens the deployment reports, so video chats stop at the budget', async () => {
    const answered: Usage[] = [];
    for (let index = 0; index < 25; index += 1) {
      const answer = await post(
        '/chat/completions',
        { model: 'tier:SIMPLE', messages: video(index) },
        'video-roomy',
      );
      if (answer.status === 200 && answer.body.usage !== undefined) answered.push(answer.body.usage);
      else expect(answer.body.error?.code).toBe('insufficient_quota');
    }
    expect(answered.every((usage) => usage.prompt_tokens === VIDEO_PROMPT_TOKENS)).toBe(true);
    const reported = answered.reduce((sum, usage) => sum + usage.total_tokens, 0);
    expect(answered.length).toBeGreaterThan(0);
    expect(reported).toBeLessThanOrEqual(100_000);
    await vi.waitFor(async () => expect(await spent('video-roomy')).toBe(reported));
  });

  it('settles a stream on the usage of its final chunk', async () => {
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-video-stream' },
      body: JSON.stringify({ model: 'tier:SIMPLE', messages: video(0), stream: true, max_tokens: 50 }),
    });
    expect(response.status).toBe(200);
    const frames = toSseData(await response.text());
    expect(frames.at(-1)).toBe('[DONE]');
    await vi.waitFor(async () => expect(await spent('video-stream')).toBe(VIDEO_PROMPT_TOKENS + 50));
  });

  it('charges a video prompt at its bound when the client closes the stream before the usage chunk', async () => {
    const aborter = new AbortController();
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-video-cut' },
      body: JSON.stringify({ model: 'tier:EXPERT', messages: video(0), stream: true, max_tokens: 200 }),
      signal: aborter.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    await reader?.read();
    aborter.abort();
    await reader?.cancel().catch(() => undefined);
    // settled (the reservation of 32,768 released) at the bound, the window less max_tokens, plus
    // the few tokens that were streamed
    await vi.waitFor(async () => {
      const total = await spent('video-cut');
      expect(total).toBeLessThan(WINDOW);
      expect(total).toBeGreaterThanOrEqual(WINDOW - 200);
    });
  });

  it('reserves the window for every media part type it cannot count, and logs the usage state', async () => {
    for (const part of [
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      { type: 'audio_url', audio_url: { url: 'https://example.com/a.wav' } },
      { type: 'image_embeds', image_embeds: 'AAAA' },
      { type: 'file', file: { file_data: 'JVBERi0=' } },
      { type: 'hologram', hologram: {} },
    ]) {
      const messages = [{ role: 'user', content: [{ type: 'text', text: 'describe this' }, part] }];
      const answer = await post(
        '/chat/completions',
        { model: 'tier:SIMPLE', messages, max_tokens: 10 },
        'parts',
      );
      expect(answer.status, part.type).toBe(200);
    }
    const lines = stack.logger.lines.filter(
      (line) => line.message === 'request' && line.fields['key'] === 'parts',
    );
    expect(lines.map((line) => line.fields['prompt_token_status'])).toEqual(Array(5).fill('confirmed'));
  });

  it('refuses n x max_tokens on chat past the budget', async () => {
    const before = requests();
    const answer = await post(
      '/chat/completions',
      { model: 'tier:SIMPLE', messages: [{ role: 'user', content: 'hi' }], n: 16, max_tokens: 2000 },
      'chat-n',
    );
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('insufficient_quota');
    expect(requests()).toBe(before);
  });

  it('counts tool definitions in the reservation', async () => {
    const before = requests();
    const tools = Array.from({ length: 100 }, (_, index) => ({
      type: 'function',
      function: {
        name: `tool_${index}`,
        description: `Looks up record ${index} in the archive and returns every field of it as text. `.repeat(
          4,
        ),
        parameters: { type: 'object', properties: { id: { type: 'string' } } },
      },
    }));
    const answer = await post(
      '/chat/completions',
      { model: 'tier:SIMPLE', messages: [{ role: 'user', content: 'hi' }], tools, max_tokens: 10 },
      'tools',
    );
    expect(answer.status).toBe(429);
    expect(requests()).toBe(before);
  });

  it('reserves max_output_tokens on /v1/responses and settles on its reported usage', async () => {
    const before = requests();
    const refused = await post(
      '/responses',
      { model: 'tier:SIMPLE', input: 'hi', max_output_tokens: 25_000 },
      'responses',
    );
    expect(refused.status).toBe(429);
    // `n` is no Responses field: refused by name before anything is reserved or sent
    const many = await post(
      '/responses',
      { model: 'tier:SIMPLE', input: 'hi', max_output_tokens: 2000, n: 16 },
      'responses',
    );
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body)).toContain('"param":"n"');
    expect(requests()).toBe(before);
    const answer = await post(
      '/responses',
      { model: 'tier:SIMPLE', input: 'HEAVY-CONTEXT summary', max_output_tokens: 20 },
      'responses-usage',
    );
    expect(answer.status).toBe(200);
    await vi.waitFor(async () => expect(await spent('responses-usage')).toBe(VIDEO_PROMPT_TOKENS + 20));
  });

  it('settles a Responses request sent natively on the usage of its response', async () => {
    for (const stream of [false, true]) {
      const before = await spent('responses-native');
      const response = await fetch(`${stack.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-responses-native' },
        body: JSON.stringify({
          model: 'tier:EXPERT',
          input: 'HEAVY-CONTEXT notes',
          max_output_tokens: 5,
          stream,
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
      await vi.waitFor(async () =>
        expect(await spent('responses-native')).toBe(before + VIDEO_PROMPT_TOKENS + 5),
      );
    }
  });

  it('refuses a Responses part type it cannot translate with 400 naming its path', async () => {
    const before = requests();
    const input = [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'read this' },
          { type: 'input_file', file_data: 'JVBERi0=' },
        ],
      },
    ];
    const answer = await post('/responses', { model: 'tier:SIMPLE', input }, 'responses');
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('input[0].content[1].type');
    expect(requests()).toBe(before);
  });

  it('refuses an embeddings request whose inputs exceed the budget, and settles on reported usage', async () => {
    const before = stack.sim('embed').stats().embeddingRequests;
    const many = Array.from(
      { length: 2048 },
      (_, index) => `record ${index}: ${'the quick brown fox '.repeat(3)}`,
    );
    const refused = await post('/embeddings', { model: 'auto', input: many }, 'embed');
    expect(refused.status).toBe(429);
    expect(stack.sim('embed').stats().embeddingRequests).toBe(before);
    const answer = await post('/embeddings', { model: 'auto', input: many.slice(0, 100) }, 'embed-usage');
    expect(answer.status).toBe(200);
    await vi.waitFor(async () => expect(await spent('embed-usage')).toBe(answer.body.usage?.prompt_tokens));
  });

  it('keeps concurrent multi-prompt completions within the budget together', async () => {
    const body = { model: 'auto', prompt: ['x = 1', 'y = 2'], n: 2, max_tokens: 1000 };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/completions', body, 'crowd')));
    const admitted = answers.filter((answer) => answer.status === 200);
    expect(
      answers.map((answer) => answer.status).filter((status) => status !== 200 && status !== 429),
    ).toEqual([]);
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThanOrEqual(4);
    const used = admitted.reduce((sum, answer) => sum + (answer.body.usage?.total_tokens ?? 0), 0);
    expect(used).toBeLessThanOrEqual(BUDGET);
    await vi.waitFor(async () => expect(await spent('crowd')).toBe(used));
  });

  it('keeps concurrent video chats within the budget together', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        post(
          '/chat/completions',
          { model: 'tier:SIMPLE', messages: video(index), max_tokens: 10 },
          'crowd-chat',
        ),
      ),
    );
    // each reserves the window (32,768) until its usage (15,010) comes back, so however they
    // interleave, what they spend together stays within the budget
    const admitted = answers.filter((answer) => answer.status === 200);
    expect(admitted.length).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    const used = admitted.reduce((sum, answer) => sum + (answer.body.usage?.total_tokens ?? 0), 0);
    expect(used).toBeLessThanOrEqual(100_000);
    await vi.waitFor(async () => expect(await spent('crowd-chat')).toBe(used));
  });

  it('names the tokens-per-minute limit when a request could spend more than it allows', async () => {
    const answer = await post(
      '/chat/completions',
      { model: 'tier:SIMPLE', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8000 },
      'tpm-only',
    );
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe('tpm_exceeded');
    expect(answer.body.error?.message).toContain('5000 tokens per minute');
  });
});
