/** Filler vocabulary of the default replies; each entry is one simulated token. */
const VOCABULARY = [
  ' the',
  ' model',
  ' routes',
  ' each',
  ' request',
  ' to',
  ' a',
  ' tier',
  ' that',
  ' fits',
  ' its',
  ' complexity',
  ' and',
  ' answers',
  ' with',
  ' care',
  ' while',
  ' latency',
  ' stays',
  ' low',
  ' for',
  ' simple',
  ' questions',
  ' but',
  ' harder',
  ' ones',
  ' go',
  ' further',
  ' up',
  ' in',
  ' quality',
  ' now',
] as const;

/** Reasoning filler used inside `<think>` or `reasoning_content`. */
export const REASONING_WORDS = ['Let', ' me', ' think', ' about', ' this', ' step', ' by', ' step.'] as const;

/** FNV-1a over the first 256 characters and the length: cheap and stable for any prompt size. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5 ^ text.length;
  const end = Math.min(text.length, 256);
  for (let index = 0; index < end; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** `count` tokens reading "Answer from <backendId>: ..." then filler chosen by `seed`. */
export function toAnswerWords(backendId: string, seed: number, count: number): string[] {
  const words: string[] = [];
  const header = ['Answer', ' from', ` ${backendId}:`];
  for (let index = 0; index < count; index += 1) {
    const fixed = header[index];
    words.push(fixed ?? (VOCABULARY[(seed + index * 7) % VOCABULARY.length] as string));
  }
  return words;
}

/** Splits text into simulated tokens: each word with its leading whitespace, trailing space kept. */
export function splitIntoTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Splits a JSON or argument string into fragments of about `size` characters. */
export function splitIntoFragments(text: string, size: number): string[] {
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) fragments.push(text.slice(start, start + size));
  return fragments;
}
