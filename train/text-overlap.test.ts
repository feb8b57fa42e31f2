import { describe, expect, it } from 'vitest';
import { createOverlapIndex, toNormalizedText, toShingles } from './text-overlap.js';

const index = createOverlapIndex([
  { id: 'primes', text: 'prove there are infinitely many primes of the form 4k+3' },
  { id: 'kelvin', text: "what's the boiling point of water in kelvin" },
  { id: 'haiku', text: '桜をテーマにした俳句を3つ作ってください。季語はちゃんと入れてね' },
  { id: 'short', text: 'sqrt of 144' },
]);
const matchIds = (text: string): string[] => index.find({ id: 'probe', text }).map((match) => match.matchId);

describe('text overlap', () => {
  it('normalizes case, apostrophes, punctuation and whitespace', () => {
    expect(toNormalizedText("  What's  the Boiling-point,\nof WATER?! ")).toBe(
      'whats the boiling point of water',
    );
  });

  it('finds an exact duplicate that differs only in case and punctuation', () => {
    expect(
      index.find({ id: 'probe', text: 'Prove there are infinitely many primes of the form 4k+3.' }),
    ).toEqual([{ id: 'probe', matchId: 'primes', kind: 'exact', similarity: 1 }]);
    expect(matchIds('SQRT of 144?')).toEqual(['short']);
  });

  it('finds a near duplicate with a word added, cut or swapped', () => {
    expect(matchIds('Prove that there are infinitely many primes of the form 4k+3.')).toEqual(['primes']);
    expect(matchIds('boiling point of water in kelvin?')).toEqual(['kelvin']);
    expect(matchIds('猫をテーマにした俳句を3つ作ってください。季語はちゃんと入れてね')).toEqual(['haiku']);
  });

  it('does not match prompts that share only a phrase or a template', () => {
    expect(matchIds('sqrt of 169')).toEqual([]);
    expect(matchIds('what is the boiling point of ethanol in fahrenheit at sea level')).toEqual([]);
    expect(
      matchIds('prove there are infinitely many primes; then explain the proof to a child in detail'),
    ).toEqual([]);
    expect(
      matchIds("what's the boiling point of water in kelvin, and why does pressure change it so much?"),
    ).toEqual([]);
  });

  it('shingles words five at a time, a CJK character being a word', () => {
    expect([...toShingles('a b c d e f')]).toEqual(['a b c d e', 'b c d e f']);
    expect([...toShingles('sqrt of 144')]).toEqual(['sqrt of 144']);
    expect(toShingles('季語はちゃんと').size).toBe(3);
  });
});
