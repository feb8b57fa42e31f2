/**
 * Exact and near duplicates between labeled texts: a prompt scored as unseen must not be in
 * the training data word for word, nor nearly so. Exact means equal after `toNormalizedText`. Near
 * means, over word 5-gram shingles, a Jaccard similarity of at least 0.8, or a text at least half as
 * long as the other (in shingles) with 0.8 of its shingles in the other: the second rule catches a
 * short prompt with a word added or cut ("Prove that there are..." against "prove there are...",
 * "boiling point of water in kelvin" against "what's the boiling point of water in kelvin"), which
 * moves a 5-word shingle set far more than a long one.
 */

/** Words per shingle. */
export const SHINGLE_WORDS = 5;
/** Shingle Jaccard similarity from which two texts count as near duplicates. */
export const NEAR_DUPLICATE_JACCARD = 0.8;
/** Share of the smaller text's shingles found in the other from which the two are near duplicates... */
export const NEAR_DUPLICATE_CONTAINMENT = 0.8;
/** ...when the smaller has at least this share of the larger's shingles, and at least two of them. */
export const CONTAINMENT_MIN_SIZE_RATIO = 0.5;

export interface OverlapText {
  id: string;
  text: string;
}

export interface OverlapMatch {
  /** Id of the text looked up. */
  id: string;
  /** Id of the indexed text it duplicates. */
  matchId: string;
  kind: 'exact' | 'near';
  /** Shingle Jaccard similarity, 0..1 (1 for an exact duplicate). */
  similarity: number;
}

/**
 * Case folded (NFKC, lower case), apostrophes dropped ("what's" = "whats"), every other punctuation
 * mark and symbol a space, whitespace collapsed.
 */
export function toNormalizedText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’‘`]/gu, '')
    .replace(/[\p{P}\p{S}\s]+/gu, ' ')
    .trim();
}

/** Words of a normalized text; a Han, kana or Hangul character is a word of its own (no spaces there). */
export function toWords(normalized: string): string[] {
  return normalized
    .replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, ' $& ')
    .split(' ')
    .filter((word) => word.length > 0);
}

/** The distinct runs of `SHINGLE_WORDS` words; a shorter text is one shingle of all its words. */
export function toShingles(normalized: string): Set<string> {
  const words = toWords(normalized);
  const shingles = new Set<string>();
  const last = Math.max(0, words.length - SHINGLE_WORDS);
  for (let start = 0; start <= last; start += 1)
    shingles.add(words.slice(start, start + SHINGLE_WORDS).join(' '));
  return shingles;
}

export interface OverlapIndex {
  /** Every indexed text that `text` duplicates exactly or nearly. */
  find: (text: OverlapText) => OverlapMatch[];
}

/** Indexes `texts` by normalized text and by shingle, so each lookup touches only texts sharing a shingle. */
export function createOverlapIndex(texts: readonly OverlapText[]): OverlapIndex {
  const byNormalized = new Map<string, string[]>();
  const byShingle = new Map<string, number[]>();
  const sizes = texts.map(({ id, text }, index) => {
    const normalized = toNormalizedText(text);
    pushTo(byNormalized, normalized, id);
    const shingles = toShingles(normalized);
    for (const shingle of shingles) pushTo(byShingle, shingle, index);
    return shingles.size;
  });
  return {
    find: ({ id, text }) => {
      const normalized = toNormalizedText(text);
      const exact = byNormalized.get(normalized) ?? [];
      const matches: OverlapMatch[] = exact.map((matchId) => ({ id, matchId, kind: 'exact', similarity: 1 }));
      const shingles = toShingles(normalized);
      for (const [index, shared] of countSharedShingles(shingles, byShingle)) {
        const counts = { one: shingles.size, other: sizes[index] ?? 0, shared };
        const matchId = texts[index]?.id ?? '';
        if (isNearDuplicate(counts) && !exact.includes(matchId))
          matches.push({ id, matchId, kind: 'near', similarity: toJaccard(counts) });
      }
      return matches;
    },
  };
}

interface ShingleCounts {
  one: number;
  other: number;
  shared: number;
}

function toJaccard({ one, other, shared }: ShingleCounts): number {
  return shared / (one + other - shared);
}

function isNearDuplicate(counts: ShingleCounts): boolean {
  const smaller = Math.min(counts.one, counts.other);
  const larger = Math.max(counts.one, counts.other);
  return (
    toJaccard(counts) >= NEAR_DUPLICATE_JACCARD ||
    (smaller >= 2 &&
      smaller >= CONTAINMENT_MIN_SIZE_RATIO * larger &&
      counts.shared >= NEAR_DUPLICATE_CONTAINMENT * smaller)
  );
}

function countSharedShingles(
  shingles: ReadonlySet<string>,
  byShingle: ReadonlyMap<string, readonly number[]>,
): Map<number, number> {
  const shared = new Map<number, number>();
  for (const shingle of shingles)
    for (const index of byShingle.get(shingle) ?? []) shared.set(index, (shared.get(index) ?? 0) + 1);
  return shared;
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const values = map.get(key);
  if (values === undefined) map.set(key, [value]);
  else values.push(value);
}
