import { describe, expect, it } from 'vitest';
import { toCacheKey } from '../../src/classify/classification-cache.js';
import { DEFAULT_INPUT_LIMITS, toClassifyInput } from '../../src/classify/classify-input.js';
import type { ClassifyRequest } from '../../src/classify/decision.js';
import { scoreHeuristics, toScopeTexts } from '../../src/classify/heuristics.js';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { loadLocalModel } from '../../src/classify/local-model.js';
import { parseClassifierReply } from '../../src/classify/parse-classifier-reply.js';
import { forEachTextFeature } from '../../src/classify/text-features.js';
import type { ContentPart } from '../../src/shared/chat.js';
import { TIERS } from '../../src/shared/tier.js';
import {
  HOSTILE_UNITS,
  repeatTo,
  toHostileRequests,
  toHostileShapes,
  type HostileRequest,
} from '../helpers/hostile-inputs.js';

/**
 * Every local stage on text built to hurt it, at window size and at 1 MB, with a few at
 * 20 MB: each produces its result, and its work is bounded by construction: the text any regex reads
 * is a window of fixed size, the n-gram pass emits a bounded number of features per character, and a
 * message's parts are each read a fixed number of times. No timing: scripts/classifier-abuse-cost.ts
 * measures the time.
 */
const { headChars, tailChars } = DEFAULT_INPUT_LIMITS;
/** The examined text: head, a blank line, tail. */
const WINDOW_CHARS = headChars + 2 + tailChars;
/** `toLowerCase` can grow a string: U+0130 (İ) becomes two code units. */
const LOWERCASE_GROWTH = 2;
/** Intent patterns read 400 + 1 + 200 characters of the lowercased window. */
const INTENT_CHARS = 601;
/** Hashed n-grams one character can emit at most: a word's end (3) and a CJK character (3). */
const FEATURES_PER_CHAR = 6;

const model = loadLocalModel('src/classify/model/local-model.json');
const local = createLocalClassifier({ mode: 'local', model, now: () => 0 });

function expectBoundedStages({ name, request, length }: HostileRequest): void {
  const input = toClassifyInput(request);
  expect(input.text.length, name).toBeLessThanOrEqual(WINDOW_CHARS);
  expect(input.lowerText.length, name).toBeLessThanOrEqual(LOWERCASE_GROWTH * WINDOW_CHARS);
  const scopes = toScopeTexts(input);
  expect(scopes.intent.length, name).toBeLessThanOrEqual(INTENT_CHARS);
  expect(scopes.full.length, name).toBeLessThanOrEqual(LOWERCASE_GROWTH * WINDOW_CHARS);
  expect(input.conversationLength, name).toBeGreaterThanOrEqual(Math.min(length, input.textLength));
  let visits = 0;
  const count = forEachTextFeature(input.lowerText, () => (visits += 1));
  expect(count).toBe(visits);
  expect(visits, name).toBeLessThanOrEqual(FEATURES_PER_CHAR * (input.lowerText.length + 1));
  const heuristic = scoreHeuristics(input);
  expect(heuristic.probabilities.SIMPLE + heuristic.probabilities.EXPERT, name).toBeLessThan(1.0001);
  const decision = local.classifyLocal(request);
  expect(TIERS, name).toContain(decision.tier);
  expect(toCacheKey(input, '').digest, name).toMatch(/^[\w-]{43}$/);
}

describe('the local classifier on hostile input', () => {
  it.each([WINDOW_CHARS, 1_000_000])('reads a window of every hostile text of %i characters', (length) => {
    for (const hostile of toHostileRequests(length)) {
      expectBoundedStages(hostile);
      expect(toClassifyInput(hostile.request).textLength).toBe(length);
    }
  });

  it.each([WINDOW_CHARS, 1_000_000])('reads a window of every hostile shape of %i characters', (length) => {
    for (const hostile of toHostileShapes(length)) expectBoundedStages(hostile);
  });

  it('reads a window of a 20 MB message of one character and of 20 MB of short parts', () => {
    const length = 20 * 1024 * 1024;
    expectBoundedStages({
      name: 'letter',
      request: { messages: [{ role: 'user', content: 'z'.repeat(length) }] },
      length,
    });
    const parts = Array.from({ length: length / 20 }, () => ({ type: 'text', text: repeatTo('{', 20) }));
    expectBoundedStages({ name: 'parts', request: { messages: [{ role: 'user', content: parts }] }, length });
  });

  it('reads each content part a fixed number of times: one linear pass per measure, whatever the window', () => {
    let reads = 0;
    const partCount = 50_000;
    const parts = Array.from({ length: partCount }, (): ContentPart => {
      const part = { type: 'text' } as ContentPart & { text: string };
      Object.defineProperty(part, 'text', {
        enumerable: true,
        get: () => {
          reads += 1;
          return 'ab (';
        },
      });
      return part;
    });
    const request: ClassifyRequest = { messages: [{ role: 'user', content: parts }] };
    const input = toClassifyInput(request);
    expect(input.textLength).toBe(partCount * 5 - 1);
    expect(input.text).toBe(
      `${repeatTo('ab (\n', headChars)}\n\n${repeatTo('\nab (', 5 * partCount).slice(-tailChars)}`,
    );
    // one pass for the length and head, one for the conversation length; the tail reads the last few
    expect(reads).toBeLessThanOrEqual(2 * partCount + tailChars);
  });

  it('classifies 10,000 messages and 10,000 image parts', () => {
    const messages = Array.from({ length: 10_000 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: 'data:,' } },
      ],
    }));
    const input = toClassifyInput({ messages });
    expect(input).toMatchObject({ turns: 10_000, imageCount: 10_000, needsVision: true });
    expect(TIERS).toContain(local.classifyLocal({ messages }).tier);
  });
});

describe('the classifier LLM reply parser on hostile replies', () => {
  it.each(Object.entries(HOSTILE_UNITS))('answers for 1 MB of %j', (_name, unit) => {
    const parsed = parseClassifierReply(repeatTo(unit, 1_000_000));
    expect(parsed.ok).toBe(false);
  });

  it('drops closed think blocks and reads past a million unclosed ones to the verdict', () => {
    const reply = `${'<think>'.repeat(150_000)}</think>{"complexity":"SIMPLE","reason":"ok"}`;
    expect(parseClassifierReply(reply)).toMatchObject({ ok: true, verdict: { complexity: 'SIMPLE' } });
    const unclosed = `<THINK>x</think>{"complexity":"EXPERT","reason":"r"}${'<think>'.repeat(150_000)}`;
    expect(parseClassifierReply(unclosed)).toMatchObject({ ok: true, verdict: { complexity: 'EXPERT' } });
  });
});
