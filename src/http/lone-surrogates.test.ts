import { describe, expect, it } from 'vitest';
import { toWellFormedJson } from './lone-surrogates.js';

const parse = (text: string): unknown => toWellFormedJson(JSON.parse(text) as unknown, text);

describe('toWellFormedJson', () => {
  it('replaces lone surrogate escapes in values and keys with U+FFFD', () => {
    expect(parse('{"a":"x\\uD800y","b":["\\udc00"],"\\ud800k":{"c":"\\uDBFF"}}')).toEqual({
      a: 'x\ufffdy',
      b: ['\ufffd'],
      '\ufffdk': { c: '\ufffd' },
    });
  });

  it('keeps escaped surrogate pairs (an emoji as Python json.dumps writes it)', () => {
    expect(parse('{"a":"\\ud83d\\ude00","b":"\\uD83D\\uDE00\\uD83D"}')).toEqual({
      a: '😀',
      b: '😀\ufffd',
    });
  });

  it('keeps an own __proto__ key a plain field', () => {
    const value = parse('{"__proto__":{"polluted":"\\ud800"}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: '\ufffd' });
  });

  it('returns the parsed value untouched when the text has no surrogate escape', () => {
    const parsed = { a: '\ud800' };
    expect(toWellFormedJson(parsed, '{"a":"no escape here"}')).toBe(parsed);
  });
});
