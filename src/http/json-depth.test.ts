import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from './json-depth.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const nested = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('the JSON depth pre-scan', () => {
  it('counts the body object as level 1 and allows exactly the limit', () => {
    expect(exceedsJsonDepth(bytes('{}'), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes('{"a":[]}'), 1)).toBe(true);
    expect(exceedsJsonDepth(bytes(nested(64)), 64)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(65)), 64)).toBe(true);
  });

  it('measures the deepest branch, not the number of brackets', () => {
    const wide = `[${Array.from({ length: 10_000 }, () => '[[1]]').join(',')}]`;
    expect(exceedsJsonDepth(bytes(wide), 3)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":{"b":{}},"c":[[[[]]]]}`), 4)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    const text = JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[\\" \\\\', c: '"]]]]' });
    expect(exceedsJsonDepth(bytes(text), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":"\\\\"}`), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":"\\\\",  "b": [[]]}`), 2)).toBe(true);
  });

  it('skips multi-byte UTF-8 text whole', () => {
    expect(exceedsJsonDepth(bytes(JSON.stringify({ text: '안녕 [[[ 你好 {{{ 🎉' })), 1)).toBe(false);
  });

  it('stops at the first level past the limit in a 100k-deep body', () => {
    const deep = bytes(`{"model":"auto","messages":${nested(100_000)}}`);
    expect(exceedsJsonDepth(deep, 64)).toBe(true);
  });

  it('leaves malformed JSON to the parser', () => {
    expect(exceedsJsonDepth(bytes(']]]]{'), 64)).toBe(false);
    expect(exceedsJsonDepth(bytes('{"never closed'), 64)).toBe(false);
  });
});
