import { describe, expect, it } from 'vitest';
import { createCountCache } from './count-cache.js';

describe('the token count cache', () => {
  it('returns a stored count and misses unknown texts', () => {
    const cache = createCountCache({ maxCharacters: 100 });
    cache.set('hello world', 2);
    expect(cache.get('hello world')).toBe(2);
    expect(cache.get('hello')).toBeUndefined();
  });

  it('evicts the least recently used texts once their total length exceeds the bound', () => {
    const cache = createCountCache({ maxCharacters: 40 });
    cache.set('a'.repeat(10), 1);
    cache.set('b'.repeat(10), 2);
    cache.set('c'.repeat(10), 3);
    expect(cache.get('a'.repeat(10))).toBe(1); // now the most recent
    cache.set('d'.repeat(10), 4);
    cache.set('e'.repeat(10), 5); // 50 characters: the oldest (b) goes
    expect(cache.get('b'.repeat(10))).toBeUndefined();
    expect(cache.get('a'.repeat(10))).toBe(1);
    expect(cache.get('e'.repeat(10))).toBe(5);
  });

  it('does not keep a text longer than a quarter of the bound', () => {
    const cache = createCountCache({ maxCharacters: 40 });
    cache.set('x'.repeat(11), 3);
    expect(cache.get('x'.repeat(11))).toBeUndefined();
  });
});
