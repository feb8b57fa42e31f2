import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCancelController } from '../shared/cancel-signal.js';
import { createTokenCounter, PARALLEL_FROM, toDeploymentTokens, type TokenCounter } from './token-counter.js';
import type { CountPool, PooledCountOptions } from '../tokenizers/count-pool.js';
import type { TextCounter } from '../tokenizers/text-counter.js';

const user = (content: string) => [{ role: 'user', content }];

describe('the token counter', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = createTokenCounter();
    await counter.prepare(['qwen3', 'o200k_base']);
  }, 60_000);
  afterAll(() => counter.close());

  it('counts with each tokenizer asked for and reports the largest count', async () => {
    const russian = 'Объясни, пожалуйста, как работает маршрутизатор запросов. '.repeat(30);
    const count = await counter.countChat(
      { messages: user(russian) },
      { tokenizers: ['qwen3', 'o200k_base'], safetyMargin: 0 },
    );
    const qwen = count.byTokenizer.get('qwen3') ?? 0;
    const o200k = count.byTokenizer.get('o200k_base') ?? 0;
    expect(qwen).toBeGreaterThan(o200k);
    expect(count.tokens).toBe(qwen);
    expect(count.estimated).toBe(false);
    expect(toDeploymentTokens(count, { model: 'gpt-4o' })).toBe(o200k);
    expect(toDeploymentTokens(count, { model: 'Qwen/Qwen3-8B' })).toBe(qwen);
    expect(toDeploymentTokens(count, { model: 'x', tokenizer: 'cl100k_base' })).toBe(qwen);
  });

  it('counts the text of a prompt exactly as the encoding does, with the margin on top', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    const exact = new Tiktoken(o200kBase).encode(text).length;
    const options = { tokenizers: ['o200k_base' as const], safetyMargin: 0 };
    expect((await counter.countText(text, options)).tokens).toBe(exact);
    expect((await counter.countText(text, { ...options, safetyMargin: 0.5 })).tokens).toBe(
      Math.ceil(exact * 1.5),
    );
  });

  it('sums separate prompts, charging their UTF-8 bytes once the exact sum passes stopAbove', async () => {
    const options = { tokenizers: ['o200k_base' as const], safetyMargin: 0 };
    const encoder = new Tiktoken(o200kBase);
    const short = 'print(1)';
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const exact = await counter.countTexts([short, long], options);
    expect(exact.sum.tokens).toBe(encoder.encode(short).length + encoder.encode(long).length);
    expect(exact.largest.tokens).toBe(encoder.encode(long).length);
    const stopped = await counter.countTexts([long, long, short], { ...options, stopAbove: 10 });
    // the first prompt passes stopAbove: the other two are charged their UTF-8 bytes
    const bytes = Buffer.byteLength(long) + Buffer.byteLength(short);
    expect(stopped.sum.tokens).toBe(encoder.encode(long).length + bytes);
  });

  it('reports the content parts it cannot count: video, audio, files, unknown types', async () => {
    const options = { tokenizers: ['o200k_base' as const], safetyMargin: 0 };
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'compare these' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
          { type: 'video_url', video_url: { url: 'https://example.com/a.mp4' } },
          { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } },
          { type: 'text', text: { not: 'a string' } },
          { type: 'anything-else' },
        ],
      },
    ];
    expect((await counter.countChat({ messages }, options)).uncountedParts).toBe(4);
    expect((await counter.countChat({ messages: user('hi') }, options)).uncountedParts).toBeUndefined();
  });

  it('estimates a prompt whose byte count cannot reach the threshold, and counts one that can', async () => {
    const english = 'Summarize the quarterly report and list the three biggest risks. '.repeat(40);
    const options = { tokenizers: ['qwen3' as const], safetyMargin: 0 };
    const exact = await counter.countChat({ messages: user(english) }, options);
    const estimated = await counter.countChat(
      { messages: user(english) },
      { ...options, estimateBelow: 100_000 },
    );
    expect(estimated.estimated).toBe(true);
    expect(Math.abs(estimated.tokens - exact.tokens) / exact.tokens).toBeLessThan(0.35);
    // the bound is the byte count (about 2,700 here): a threshold below it means a real count
    expect(await counter.countChat({ messages: user(english) }, { ...options, estimateBelow: 2000 })).toEqual(
      exact,
    );
  });

  it('adds the template per message, images, tool definitions and tool calls', async () => {
    const options = { tokenizers: ['qwen3' as const], safetyMargin: 0, imageTokens: 100 };
    const base = (await counter.countChat({ messages: user('hi') }, options)).tokens;
    const withImage = await counter.countChat(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image_url', image_url: { url: 'data:,' } },
            ],
          },
        ],
      },
      options,
    );
    expect(withImage.tokens - base).toBe(100);
    const tools = [{ type: 'function', function: { name: 'lookup_weather' } }];
    expect((await counter.countChat({ messages: user('hi'), tools }, options)).tokens).toBeGreaterThan(
      base + 50,
    );
    const call = {
      messages: [
        ...user('hi'),
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }] },
      ],
    };
    expect((await counter.countChat(call, options)).tokens).toBeGreaterThan(base + 10);
  });

  it('counts tool schemas nested 100,000 deep without running out of stack', async () => {
    let parameters: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 100_000; depth++) parameters = { items: parameters };
    const count = await counter.countChat(
      { messages: user('hi'), tools: [{ type: 'function', function: { name: 'deep', parameters } }] },
      { tokenizers: ['qwen3'], safetyMargin: 0 },
    );
    expect(count.tokens).toBeGreaterThan(100_000);
  });

  it('stops with CLIENT_CLOSED when the request was cancelled', async () => {
    const controller = createCancelController();
    controller.abort();
    await expect(
      counter.countChat(
        { messages: user('zzzz'.repeat(50_000)) },
        { tokenizers: ['qwen3'], safetyMargin: 0, signal: controller.signal },
      ),
    ).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it('stops counting once the prompt is above stopAbove', async () => {
    const count = await counter.countText('lorem ipsum dolor sit amet '.repeat(200_000), {
      tokenizers: ['qwen3'],
      safetyMargin: 0,
      stopAbove: 5000,
    });
    expect(count.tokens).toBeGreaterThan(5000);
    expect(count.tokens).toBeLessThan(10_000);
  });
});

describe('loading tokenizers', () => {
  it('loads each tokenizer once, on first use or when prepared', async () => {
    const loaded: string[] = [];
    const fake: TextCounter = { count: (text) => Promise.resolve(text.length) };
    const counter = createTokenCounter({
      load: (name) => {
        loaded.push(name);
        return Promise.resolve(fake);
      },
    });
    await counter.prepare(['cl100k_base']);
    await counter.countText('abc', { tokenizers: ['cl100k_base', 'o200k_base'], safetyMargin: 0 });
    await counter.countText('abcd', { tokenizers: ['o200k_base'], safetyMargin: 0 });
    expect(loaded).toEqual(['cl100k_base', 'o200k_base']);
  });
});

describe('long texts on the counting threads', () => {
  const fake: TextCounter = { count: (text) => Promise.resolve(text.length) };
  /** A pool that records what it is asked and answers `answer` (undefined: not ready, or a thread died). */
  const recordingPool = (answer: (text: string) => number | undefined) => {
    const asked: { length: number; options: PooledCountOptions | undefined }[] = [];
    const pool: CountPool = {
      count: (_tokenizer, text, options) => {
        asked.push({ length: text.length, options });
        const tokens = answer(text);
        return Promise.resolve(tokens === undefined ? undefined : { tokens, segments: [] });
      },
      prepare: () => Promise.resolve(0),
      close: () => Promise.resolve(),
    };
    return { pool, asked };
  };
  const options = { tokenizers: ['qwen3' as const], safetyMargin: 0, stopAbove: 500_000 };

  it('never sends a text of fewer than PARALLEL_FROM UTF-8 bytes to the threads', async () => {
    const { pool, asked } = recordingPool(() => 1);
    const counter = createTokenCounter({ load: () => Promise.resolve(fake), pool, cacheCharacters: 0 });
    const short = 'a'.repeat(PARALLEL_FROM - 1);
    await counter.countChat({ messages: user(short) }, options);
    await counter.countText(short, options);
    await counter.countText('é'.repeat(PARALLEL_FROM / 2 - 1), options);
    expect(asked).toEqual([]);
    const count = await counter.countText('a'.repeat(PARALLEL_FROM), options);
    expect(asked).toEqual([{ length: PARALLEL_FROM, options: { signal: undefined, stopAbove: 500_000 } }]);
    expect(count.tokens).toBe(1);
    // 3 bytes a character: fewer characters than PARALLEL_FROM, as many bytes
    await counter.countText('中'.repeat(Math.ceil(PARALLEL_FROM / 3)), options);
    expect(asked.map((call) => call.length)).toEqual([PARALLEL_FROM, Math.ceil(PARALLEL_FROM / 3)]);
  });

  it('has the threads load the tokenizers only when asked to, after the in-process counter', async () => {
    const { pool } = recordingPool(() => 1);
    const prepared: string[] = [];
    pool.prepare = (tokenizer) => {
      prepared.push(tokenizer);
      return Promise.resolve(2);
    };
    const counter = createTokenCounter({ load: () => Promise.resolve(fake), pool });
    await counter.prepare(['qwen3']);
    expect(prepared).toEqual([]);
    await counter.prepare(['qwen3', 'o200k_base'], { threads: true });
    expect(prepared).toEqual(['qwen3', 'o200k_base']);
  });

  it('counts in-process when the threads have no count (not loaded yet, or one died)', async () => {
    const { pool, asked } = recordingPool(() => undefined);
    const counter = createTokenCounter({ load: () => Promise.resolve(fake), pool });
    const count = await counter.countText('b'.repeat(PARALLEL_FROM + 5), options);
    expect(asked).toHaveLength(1);
    expect(count.tokens).toBe(PARALLEL_FROM + 5);
  });

  it('passes what is left of stopAbove after the texts before, and closes the threads', async () => {
    const { pool, asked } = recordingPool((text) => text.length);
    let closed = false;
    pool.close = () => {
      closed = true;
      return Promise.resolve();
    };
    const counter = createTokenCounter({ load: () => Promise.resolve(fake), pool });
    const long = 'c'.repeat(PARALLEL_FROM);
    const messages = [...user(long), ...user(long.replaceAll('c', 'd'))];
    await counter.countChat({ messages }, { ...options, stopAbove: 300_000 });
    expect(asked.map((call) => call.options?.stopAbove)).toEqual([
      300_000 - '<|im_start|>user\n'.length,
      300_000 - PARALLEL_FROM - 2 * '<|im_start|>user\n'.length - '<|im_end|>\n'.length,
    ]);
    await counter.close();
    expect(closed).toBe(true);
  });
});
