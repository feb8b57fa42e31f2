import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createClassificationCache, toCacheKey, type CacheKey } from './classification-cache.js';
import { toClassifyInput } from './classify-input.js';
import type { ClassificationDecision, ClassifyRequest } from './decision.js';

const DECISION: ClassificationDecision = {
  tier: 'SIMPLE',
  cause: 'heuristic',
  confidence: 0.9,
  signals: [],
  needsVision: false,
  stageLatencyMs: {},
  llmCalled: false,
};
const at = (scope: string, digest: string): CacheKey => ({ scope, digest });
const keyOf = (request: ClassifyRequest, scope = ''): CacheKey => toCacheKey(toClassifyInput(request), scope);

describe('the classification cache', () => {
  it('keeps at most max_entries, drops the least recently used first and reports each drop', () => {
    let evicted = 0;
    const cache = createClassificationCache({
      clock: createManualClock(0),
      maxEntries: 2,
      ttlMs: 60_000,
      onEvict: (count) => (evicted += count),
    });
    cache.set(at('', 'a'), DECISION);
    cache.set(at('', 'b'), DECISION);
    cache.get(at('', 'a')); // a is now the most recently used
    cache.set(at('', 'c'), DECISION);
    expect(cache.size()).toBe(2);
    expect(cache.get(at('', 'b'))).toBeUndefined();
    expect(cache.get(at('', 'a'))).toEqual(DECISION);
    expect(evicted).toBe(1);
  });

  it('answers a scope only from its own entries', () => {
    const cache = createClassificationCache({ clock: createManualClock(0), maxEntries: 10, ttlMs: 60_000 });
    cache.set(at('key-a', 'same'), DECISION);
    expect(cache.get(at('key-b', 'same'))).toBeUndefined();
    expect(cache.get(at('key-a', 'same'))).toEqual(DECISION);
  });

  it("evicts from the scope holding the most entries, so a flooding scope never drops another's", () => {
    const cache = createClassificationCache({ clock: createManualClock(0), maxEntries: 10, ttlMs: 60_000 });
    for (let index = 0; index < 3; index += 1) cache.set(at('quiet', `q${index}`), DECISION);
    for (let index = 0; index < 1000; index += 1) cache.set(at('flood', `f${index}`), DECISION);
    expect(cache.size()).toBe(10);
    for (let index = 0; index < 3; index += 1) expect(cache.get(at('quiet', `q${index}`))).toEqual(DECISION);
    expect(cache.get(at('flood', 'f999'))).toEqual(DECISION);
    expect(cache.get(at('flood', 'f992'))).toBeUndefined();
  });

  it('makes room for a new scope in a full cache from the largest scope', () => {
    const cache = createClassificationCache({ clock: createManualClock(0), maxEntries: 4, ttlMs: 60_000 });
    for (let index = 0; index < 4; index += 1) cache.set(at('flood', `f${index}`), DECISION);
    cache.set(at('late', 'l0'), DECISION);
    expect(cache.size()).toBe(4);
    expect(cache.get(at('late', 'l0'))).toEqual(DECISION);
    expect(cache.get(at('flood', 'f0'))).toBeUndefined();
  });

  it('drops an expired entry on read and counts it no more', () => {
    const clock = createManualClock(0);
    const cache = createClassificationCache({ clock, maxEntries: 4, ttlMs: 1000 });
    cache.set(at('a', 'x'), DECISION);
    clock.advance(1000);
    expect(cache.get(at('a', 'x'))).toBeUndefined();
    expect(cache.size()).toBe(0);
  });
});

describe('the classification cache key', () => {
  const LAST = { role: 'user', content: 'and the other one?' } as const;

  it('differs when the system prompt, an earlier turn, the turn count or the spelling differs', () => {
    const base = keyOf({ messages: [LAST] });
    const variants: ClassifyRequest[] = [
      { messages: [{ role: 'system', content: 'Answer briefly.' }, LAST] },
      { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, LAST] },
      { messages: [{ role: 'user', content: '```js\nconst a = 1\n```' }, LAST] },
      { messages: [{ role: 'user', content: 'AND the other one?' }] },
      { messages: [{ role: 'user', content: 'and  the other one?' }] },
      { messages: [LAST], tools: [{ type: 'function' }] },
    ];
    const digests = new Set([base.digest, ...variants.map((request) => keyOf(request).digest)]);
    expect(digests.size).toBe(variants.length + 1);
  });

  it('is the same for the same request and carries the scope it was asked in', () => {
    const request = { messages: [{ role: 'system', content: 'x' }, LAST] };
    expect(keyOf(request, 'k')).toEqual(keyOf(request, 'k'));
    expect(keyOf(request, 'k').scope).toBe('k');
  });
});
