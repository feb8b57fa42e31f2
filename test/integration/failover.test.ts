import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { systemSleep, type Sleep } from '../../src/shared/clock.js';
import { createShiftedClock } from '../helpers/shifted-clock.js';
import { HELLO, postChat, simpleTable, startStack, toSseData, type Stack } from '../helpers/start-stack.js';

const TWO = [
  { id: 'a', models: ['sim-model'] },
  { id: 'b', models: ['sim-model'] },
];
/** random() = 0 makes the weighted shuffle keep the configured order: a, then b. */
const firstFirst = (): number => 0;

/** A real sleep that lists every wait the balancer asks for, in ms. */
function recordingSleep(): Sleep & { waits: number[] } {
  const waits: number[] = [];
  return Object.assign(
    (milliseconds: number, signal?: Parameters<Sleep>[1]) => {
      waits.push(milliseconds);
      return systemSleep(milliseconds, signal);
    },
    { waits },
  );
}

async function twoInGroup(
  options: {
    cooldownMs?: number;
    timeouts?: Record<string, number>;
    clock?: ReturnType<typeof createShiftedClock>;
    sleep?: Sleep;
  } = {},
): Promise<Stack> {
  const { clock, sleep, ...table } = options;
  return startStack({
    backends: TWO,
    random: firstFirst,
    ...(clock === undefined ? {} : { clock }),
    ...(sleep === undefined ? {} : { sleep }),
    table: (urls) => simpleTable({ urls, group: ['a', 'b'], ...table }),
  });
}

type Body = { choices: { message: { content: string } }[]; error?: { message: string; code: string } };

describe('failover before the first content token', () => {
  let stack: Stack;
  afterEach(() => stack.close());

  const preCommitFaults = [
    'error_503',
    'error_500_once',
    'reset_before_headers',
    'rate_limit',
    'rate_limit_no_retry_after',
    'no_response',
    'headers_then_nothing',
    'slow_first_token',
    'malformed_chunk',
  ];
  for (const fault of preCommitFaults) {
    for (const stream of [false, true]) {
      it(`answers from the next deployment when the first ${fault === 'malformed_chunk' ? 'stream chunk is malformed' : `answers ${fault}`} (${stream ? 'stream' : 'non-stream'})`, async () => {
        stack = await twoInGroup();
        const params =
          fault === 'slow_first_token' ? { ms: 3000 } : fault === 'malformed_chunk' ? { after: 0 } : {};
        stack.sim('a').setFault({ name: fault as never, params });
        const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO, stream });
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(response.headers.get('x-autotier-deployment')).toBe('b');
        expect(response.headers.get('x-autotier-attempts')).toBe('2');
        if (stream) expect(toSseData(text).at(-1)).toBe('[DONE]');
        else expect((JSON.parse(text) as Body).choices[0]?.message.content).toMatch(/\w/);
        // no wall-time bound here: b answering proves a was left at its timeout (waiting a's 3 s token out
        // would answer from a, and a silent a would end in a 504 at total_ms); the balancer's unit tests
        // pin each timeout with a manual clock, the fault suite measures it on the real server
        expect(stack.sim('a').stats().chatRequests).toBe(1);
      });
    }
  }
});

describe('failures after the first content token', () => {
  let stack: Stack;
  afterEach(() => stack.close());

  for (const fault of ['cut_mid_stream', 'stall_mid_stream', 'malformed_chunk']) {
    it(`ends the stream with an in-band error and no [DONE] when the upstream hits ${fault}`, async () => {
      stack = await twoInGroup();
      stack.sim('a').setFault({ name: fault as never, params: { after: 3 } });
      const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO, stream: true });
      expect(response.status).toBe(200);
      const events = toSseData(await response.text());
      expect(events).not.toContain('[DONE]');
      const last = JSON.parse(events.at(-1) ?? '{}') as { error?: { code: string } };
      expect(last.error?.code).toMatch(/^upstream_/);
      expect(stack.sim('b').stats().chatRequests).toBe(0);
    });

    it(`gives a non-streaming client the answer of the next deployment when the upstream hits ${fault}`, async () => {
      stack = await twoInGroup();
      stack.sim('a').setFault({ name: fault as never, params: { after: 3 } });
      const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autotier-deployment')).toBe('b');
      expect(((await response.json()) as Body).choices[0]?.message.content).toMatch(/\w/);
    });
  }

  it('completes the answer when the upstream omits [DONE] after a finish_reason', async () => {
    stack = await twoInGroup();
    stack.sim('a').setFault({ name: 'no_done' });
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO, stream: true });
    const events = toSseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    expect(response.headers.get('x-autotier-deployment')).toBe('a');
  });
});

describe('when deployments are down', () => {
  let stack: Stack;
  afterEach(() => stack.close());

  it('answers 503 naming every attempt when all deployments fail', async () => {
    stack = await twoInGroup();
    stack.sim('a').setFault({ name: 'error_503' });
    stack.sim('b').setFault({ name: 'reset_before_headers' });
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(503);
    const body = (await response.json()) as Body;
    expect(body.error?.code).toBe('all_deployments_failed');
    expect(body.error?.message).toContain('a: UPSTREAM_SERVER_ERROR');
    expect(body.error?.message).toContain('b: UPSTREAM_CONNECT_FAILED');
  });

  it('answers 503 at once after one call to the deployment whose cooldown ends first, while every deployment cools down', async () => {
    const sleep = recordingSleep();
    stack = await twoInGroup({ cooldownMs: 60_000, sleep });
    stack.sim('a').setFault({ name: 'error_503' });
    stack.sim('b').setFault({ name: 'error_503' });
    await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    // a, then b, then b once more in place (no peer left; random() = 0: no jitter)
    expect(sleep.waits).toEqual([0]);
    const started = Date.now();
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(503);
    expect(sleep.waits).toEqual([0]);
    // "at once" as opposed to waiting out the 60 s cooldown: 10 s of slack for a loaded machine
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(((await response.json()) as Body).error?.message).toContain('COOLING_DOWN');
    // the panic call: a was benched first, so its cooldown ends first
    expect(stack.sim('a').stats().chatRequests).toBe(2);
    expect(stack.sim('b').stats().chatRequests).toBe(2);
    expect((await fetch(`${stack.url}/ready`)).status).toBe(503);
  });

  it('never exceeds total_ms: a silent upstream with total_ms=2000 ends within about 2 s', async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) =>
        simpleTable({
          urls,
          group: ['a'],
          timeouts: { connect_ms: 10_000, ttft_ms: 10_000, total_ms: 2000 },
        }),
    });
    stack.sim('a').setFault({ name: 'no_response' });
    const started = Date.now();
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO, stream: true });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect(((await response.json()) as Body).error?.code).toBe('deadline_exceeded');
    // the deadline timer never fires early; the bound above leaves 3 s of load slack and still ends
    // well before connect_ms and ttft_ms (10 s), the only other timers that could end this request
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(5000);
  });

  it('falls back along the chain when the whole group fails', async () => {
    stack = await startStack({
      backends: [...TWO, { id: 'c', models: ['sim-model'] }],
      random: firstFirst,
      table: (urls) => simpleTable({ urls, group: ['a', 'b'], fallback: ['c'] }),
    });
    stack.sim('a').setFault({ name: 'error_503' });
    stack.sim('b').setFault({ name: 'error_503' });
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-deployment')).toBe('c');
    expect(response.headers.get('x-autotier-fallbacks')).toBe('1');
    // a, b, b once more in place (no peer left, c is weaker), then c
    expect(response.headers.get('x-autotier-attempts')).toBe('4');
    expect(stack.sim('b').stats().chatRequests).toBe(2);
  });

  it('returns a request-shaped 400 to the client without retrying it', async () => {
    stack = await twoInGroup();
    stack.sim('a').setFault({ name: 'bad_request' });
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Body).error?.code).toBe('upstream_bad_request');
    expect(stack.sim('b').stats().chatRequests).toBe(0);
  });
});

describe('rate limits, cooldowns and probes', () => {
  let stack: Stack;
  afterEach(() => stack.close());

  it("honors Retry-After on a group's only deployment and does not bench it", async () => {
    const waits: number[] = [];
    // the fault clears as the balancer starts its wait: no timer races the retry
    const sleep: Sleep = (milliseconds, signal) => {
      waits.push(milliseconds);
      stack.sim('a').setFault(null);
      return systemSleep(milliseconds, signal);
    };
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => simpleTable({ urls, group: ['a'] }),
      sleep,
    });
    stack.sim('a').setFault({ name: 'rate_limit', params: { seconds: 1 } });
    const started = Date.now();
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(200);
    expect(waits).toEqual([1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(response.headers.get('x-autotier-attempts')).toBe('2');
    const next = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(next.headers.get('x-autotier-attempts')).toBe('1');
    expect(next.headers.get('x-autotier-deployment')).toBe('a');
  });

  it('benches a failing deployment, then sends one probe after the cooldown and takes it back', async () => {
    // the cooldown runs on a clock the test moves: however slow the machine, it lapses only on advance()
    const clock = createShiftedClock();
    stack = await twoInGroup({ cooldownMs: 60_000, clock });
    stack.sim('a').setFault({ name: 'error_503' });
    const first = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(first.headers.get('x-autotier-deployment')).toBe('b');
    const benched = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(benched.headers.get('x-autotier-attempts')).toBe('1');
    expect(benched.headers.get('x-autotier-deployment')).toBe('b');
    expect(stack.sim('a').stats().chatRequests).toBe(1);
    stack.sim('a').setFault(null);
    clock.advance(60_000);
    const probe = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(probe.headers.get('x-autotier-deployment')).toBe('a');
    const after = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(after.headers.get('x-autotier-deployment')).toBe('a');
  });

  it('keeps a flapping primary out instead of oscillating on every request', async () => {
    stack = await twoInGroup({ cooldownMs: 60_000 });
    stack.sim('a').setFault({ name: 'flapping', params: { period: 1 } });
    for (let index = 0; index < 10; index += 1) {
      const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
      expect(response.status).toBe(200);
    }
    expect(stack.sim('a').stats().chatRequests).toBeLessThanOrEqual(2);
  });

  it('sends a prompt rejected for context length to a deployment with a larger window, not back to the same', async () => {
    stack = await startStack({
      backends: [
        { id: 'small', models: ['sim-model'], contextWindow: 8192 },
        { id: 'big', models: ['sim-model'], contextWindow: 32768 },
      ],
      random: firstFirst,
      table: (urls) => ({
        ...simpleTable({ urls, group: ['small', 'big'] }),
        deployments: [
          { id: 'small', model: 'sim-model', base_url: urls['small'] ?? '', context_window: 32768 },
          { id: 'big', model: 'sim-model', base_url: urls['big'] ?? '', context_window: 65536 },
        ],
      }),
    });
    const response = await postChat(stack.url, {
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'word '.repeat(9000) }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-deployment')).toBe('big');
    expect(stack.sim('small').stats().chatRequests).toBe(1);
  });
});

describe('client disconnects and the official openai client', () => {
  let stack: Stack;
  afterEach(() => stack.close());

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: 20 } }],
      table: (urls) => simpleTable({ urls, group: ['a'], timeouts: { total_ms: 20_000 } }),
    });
    const controller = new AbortController();
    const response = await postChat(stack.url, {
      model: 'tier:SIMPLE',
      messages: HELLO,
      stream: true,
      max_tokens: 200,
    });
    const reader = response.body!.getReader();
    await reader.read();
    expect(stack.sim('a').stats().inFlight).toBe(1);
    controller.abort();
    await reader.cancel();
    await expect.poll(() => stack.sim('a').stats().inFlight, { timeout: 10_000 }).toBe(0);
  });

  it('works with the official openai client: non-stream, stream and a tool call', async () => {
    stack = await twoInGroup();
    const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/\w/);
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage?.total_tokens ?? usage;
    }
    expect(text).toMatch(/\w/);
    expect(usage).toBeGreaterThan(0);
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const toolCompletion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools,
    });
    const call = toolCompletion.choices[0]?.message.tool_calls?.[0];
    expect(toolCompletion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' ? call.function.name : '').toBe('get_weather');
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : '{}')).toHaveProperty('city');
    const toolStream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools,
      stream: true,
    });
    let name = '';
    let argumentsText = '';
    for await (const chunk of toolStream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        argumentsText += delta.function?.arguments ?? '';
      }
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(argumentsText)).toHaveProperty('city');
  });
});
