import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from './token-counter.js';

describe('the token counter', () => {
  let counter: TokenCounter;
  let exact: Tiktoken;
  beforeAll(() => {
    counter = createTokenCounter({ encoding: 'o200k_base' });
    exact = new Tiktoken(o200kBase);
  });

  it('answers a repeated text from its cache with the same count', async () => {
    const text = 'You are a coding assistant inside an IDE. '.repeat(50);
    const first = await counter.countText(text);
    expect(await counter.countText(text)).toBe(first);
    const uncached = createTokenCounter({ encoding: 'o200k_base', cacheCharacters: 0 });
    expect(await uncached.countText(text)).toBe(first);
  });

  it('estimates a prompt whose byte count cannot reach the threshold, and encodes one that can', async () => {
    const settings = { safetyMargin: 0, imageTokens: 0 };
    const english = 'Summarize the quarterly report and list the three biggest risks for the board. '.repeat(
      40,
    );
    const messages = [{ role: 'user' as const, content: english }];
    const exactCount = await counter.countChat({ messages }, settings);
    const estimated = await counter.countChat({ messages }, { ...settings, estimateBelow: 100_000 });
    expect(Math.abs(estimated - exactCount) / exactCount).toBeLessThan(0.35);
    // the bound is the byte count (about 3,200 here): a threshold below it means an exact count
    expect(await counter.countChat({ messages }, { ...settings, estimateBelow: 3000 })).toBe(exactCount);
  });

  it('estimates CJK text at about a token per character', async () => {
    const chinese = '我们需要在这个系统中实现一个高效的路由器。'.repeat(20);
    const messages = [{ role: 'user' as const, content: chinese }];
    const exactCount = await counter.countChat({ messages }, { safetyMargin: 0, imageTokens: 0 });
    const estimated = await counter.countChat(
      { messages },
      { safetyMargin: 0, imageTokens: 0, estimateBelow: 100_000 },
    );
    expect(Math.abs(estimated - exactCount) / exactCount).toBeLessThan(0.35);
  });

  it('counts short text exactly', async () => {
    expect(await counter.countText('hello world')).toBe(exact.encode('hello world').length);
  });

  it('counts long English text in slices to within a token per slice', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(2000);
    const counted = await counter.countText(text);
    expect(Math.abs(counted - exact.encode(text).length)).toBeLessThanOrEqual(12);
  });

  it('estimates long Chinese text within 8% above the exact count, never below it', async () => {
    const text = '我们需要在这个系统中实现一个高效的路由器，它能够根据请求的复杂度选择合适的模型。'.repeat(
      150,
    );
    const truth = exact.encode(text).length;
    const counted = await counter.countText(text);
    expect(counted).toBeGreaterThanOrEqual(truth);
    expect(counted).toBeLessThanOrEqual(truth * 1.08);
  });

  it('adds per-message overhead, images, tools and the safety margin', async () => {
    const base = await counter.countChat(
      { messages: [{ role: 'user', content: 'hi' }] },
      { safetyMargin: 0, imageTokens: 100 },
    );
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
      { safetyMargin: 0, imageTokens: 100 },
    );
    expect(withImage - base).toBe(100);
    const withTools = await counter.countChat(
      {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'lookup_weather' } }],
      },
      { safetyMargin: 0, imageTokens: 0 },
    );
    expect(withTools).toBeGreaterThan(base);
    expect(
      await counter.countChat(
        { messages: [{ role: 'user', content: 'hi' }] },
        { safetyMargin: 0.5, imageTokens: 0 },
      ),
    ).toBe(Math.ceil(base * 1.5));
  });

  it('lets the event loop run while counting a long prompt', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    await counter.countText('lorem ipsum dolor sit amet '.repeat(20_000));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });
});
