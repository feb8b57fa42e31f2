import { describe, expect, it } from 'vitest';
import { repeatTo } from '../../test/helpers/hostile-inputs.js';
import { hasNumberedRequirements, NUMBERED_REQUIREMENTS_PATTERN } from './numbered-requirements.js';

/** Pieces of list items and the characters the pattern cares about; a linear congruential generator picks them. */
const ALPHABET = [
  '1. a\n',
  '- b\n',
  ' \t* c',
  '2)\td\n',
  '• e',
  '12.',
  '1',
  ')',
  '-',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u2028',
  '\u00a0',
  'x',
];
const FILLERS = ['', 'y'.repeat(390), 'y'.repeat(399), 'y'.repeat(400), 'y'.repeat(401)];

function* randomTexts(count: number): Generator<string> {
  let state = 12345;
  const next = (limit: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % limit;
  };
  for (let index = 0; index < count; index += 1) {
    let text = '';
    const length = next(40);
    for (let position = 0; position < length; position += 1) {
      text +=
        next(12) === 0 ? (FILLERS[next(FILLERS.length)] ?? '') : (ALPHABET[next(ALPHABET.length)] ?? '');
    }
    yield text;
  }
}

describe('hasNumberedRequirements', () => {
  it('answers like NUMBERED_REQUIREMENTS_PATTERN on 20,000 random texts of list marks, line ends and gaps', () => {
    let matches = 0;
    for (const text of randomTexts(20_000)) {
      const expected = NUMBERED_REQUIREMENTS_PATTERN.test(text);
      expect(hasNumberedRequirements(text), JSON.stringify(text)).toBe(expected);
      if (expected) matches += 1;
    }
    expect(matches).toBeGreaterThan(2000);
    expect(matches).toBeLessThan(18_000);
  });

  it.each([
    ['1. a\n2. b\n3. c\n', true],
    ['- a\n- b\n- c', false],
    ['  * a\r\n\t* b\n• c\n', true],
    [`1. a\n${'y'.repeat(400)}2. b\n3. c\n`, false],
    [`1. a\n${'y\n'.repeat(200)}2. b\n3. c\n`, true],
    [`1. a\n${'y\n'.repeat(201)}2. b\n3. c\n`, false],
    ['1.a\n2. b\n3. c\n4. d\n', true],
    ['1)  \u00a0a\n2. b\n3. c\n', false],
  ])('answers %j like the regex (%s)', (text, expected) => {
    expect(NUMBERED_REQUIREMENTS_PATTERN.test(text)).toBe(expected);
    expect(hasNumberedRequirements(text)).toBe(expected);
  });

  it('reads a window of items after carriage returns with one far newline in one pass and answers', () => {
    const text = `${repeatTo('\t*\t\u0000\r', 600)}\n\n${repeatTo('\t*\t\u0000\r', 300)}`;
    expect(hasNumberedRequirements(text)).toBe(NUMBERED_REQUIREMENTS_PATTERN.test(text));
  });
});
