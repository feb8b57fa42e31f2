import { describe, expect, it } from 'vitest';
import { toMessageText, type ContentPart } from '../shared/chat.js';
import { toMessageTextWindow } from './message-text.js';

const PIECES: readonly ContentPart[] = [
  { type: 'text', text: '' },
  { type: 'text', text: 'a' },
  { type: 'text', text: 'hello world' },
  { type: 'text', text: '\n' },
  { type: 'image_url', image_url: { url: 'data:,' } },
  { type: 'input_audio', data: 'x' },
  { type: 'text', text: 'x'.repeat(37) },
];

/** A small linear congruential generator, so the cases are the same on every run. */
function* randomContents(count: number): Generator<ContentPart[]> {
  let state = 7;
  const next = (limit: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % limit;
  };
  for (let index = 0; index < count; index += 1) {
    yield Array.from({ length: next(9) }, () => PIECES[next(PIECES.length)] ?? { type: 'text', text: '' });
  }
}

describe('toMessageTextWindow', () => {
  it('gives the length, head and tail of toMessageText for 5,000 mixes of empty, text and image parts', () => {
    for (const content of randomContents(5_000)) {
      const joined = toMessageText(content);
      for (const [headChars, tailChars] of [
        [0, 0],
        [1, 1],
        [5, 3],
        [12, 40],
        [100, 100],
      ] as const) {
        const window = toMessageTextWindow(content, { headChars, tailChars });
        const label = JSON.stringify([content, headChars, tailChars]);
        expect(window.length, label).toBe(joined.length);
        expect(window.head, label).toBe(joined.slice(0, headChars));
        expect(window.tail, label).toBe(tailChars === 0 ? '' : joined.slice(-tailChars));
      }
    }
  });

  it('reads a string, null and a missing content like toMessageText', () => {
    expect(toMessageTextWindow('abcdef', { headChars: 2, tailChars: 3 })).toEqual({
      length: 6,
      head: 'ab',
      tail: 'def',
    });
    expect(toMessageTextWindow(null, { headChars: 2, tailChars: 3 })).toEqual({
      length: 0,
      head: '',
      tail: '',
    });
    expect(toMessageTextWindow(undefined, { headChars: 2, tailChars: 3 })).toEqual({
      length: 0,
      head: '',
      tail: '',
    });
  });
});
