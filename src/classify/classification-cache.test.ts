import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createClassificationCache } from './classification-cache.js';
import type { ClassificationDecision } from './decision.js';

const DECISION: ClassificationDecision = {
  tier: 'SIMPLE',
  cause: 'heuristic',
  confidence: 0.9,
  signals: [],
  needsVision: false,
  stageLatencyMs: {},
  llmCalled: false,
};

describe('the classification cache', () => {
  it('keeps at most max_entries, drops the least recently used first and reports each drop', () => {
    let evicted = 0;
    const cache = createClassificationCache({
      clock: createManualClock(0),
      maxEntries: 2,
      ttlMs: 60_000,
      onEvict: (count) => (evicted += count),
    });
    cache.set('a', DECISION);
    cache.set('b', DECISION);
    cache.get('a'); // a is now the most recently used
    cache.set('c', DECISION);
    expect(cache.size()).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(DECISION);
    expect(evicted).toBe(1);
  });
});
