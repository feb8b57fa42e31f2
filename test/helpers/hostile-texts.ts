import { createSeededRandom } from '../../src/shared/seeded-random.js';

/**
 * Texts that stress a tokenizer: long runs its pre-tokenizer does not split and runs of separators.
 * Deterministic (seeded), so a failure names a text that can be made again.
 */
export type HostileKind =
  | 'repeated'
  | 'base64'
  | 'dna'
  | 'cjk'
  | 'minified-js'
  | 'url'
  | 'spaces'
  | 'newlines'
  | 'punctuation'
  | 'mixed-whitespace'
  | 'digits'
  | 'hangul'
  | 'cyrillic-run'
  | 'emoji'
  | 'combining';

export const HOSTILE_KINDS: readonly HostileKind[] = [
  'repeated',
  'base64',
  'dna',
  'cjk',
  'minified-js',
  'url',
  'spaces',
  'newlines',
  'punctuation',
  'mixed-whitespace',
  'digits',
  'hangul',
  'cyrillic-run',
  'emoji',
  'combining',
];

export { createSeededRandom };

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const JS_WORDS = ['function', 'return', 'var', 'const', 'this', 'null', 'typeof', 'new', 'if', 'else'];
const JS_PUNCTUATION = ['(', ')', '{', '}', ';', ',', '.', '=', '===', '&&', '||', '!', '?', ':', '[', ']'];

function pick(items: string | readonly string[], random: () => number): string {
  return items[Math.floor(random() * items.length)] ?? '';
}

function repeatTo(length: number, next: () => string): string {
  const parts: string[] = [];
  let total = 0;
  while (total < length) {
    const part = next();
    parts.push(part);
    total += part.length;
  }
  return parts.join('').slice(0, length);
}

function minifiedJs(random: () => number): string {
  const roll = random();
  if (roll < 0.3) return pick(JS_WORDS, random) + (random() < 0.5 ? ' ' : '');
  if (roll < 0.6) return pick(JS_PUNCTUATION, random);
  if (roll < 0.8)
    return String.fromCharCode(97 + Math.floor(random() * 26)).repeat(1 + Math.floor(random() * 2));
  return String(Math.floor(random() * 1000));
}

function url(random: () => number): string {
  const segment = (): string =>
    repeatTo(3 + Math.floor(random() * 12), () => pick(BASE64.slice(0, 62), random));
  return `https://${segment()}.example.com/${segment()}/${segment()}?${segment()}=${segment()}&${segment()}=%2F${segment()}#`;
}

/** `length` UTF-16 units of one hostile kind (a surrogate pair may be cut at the very end). */
export function toHostileText(kind: HostileKind, length: number, seed = 1): string {
  const random = createSeededRandom(seed);
  const code = (from: number, span: number) => (): string =>
    String.fromCodePoint(from + Math.floor(random() * span));
  switch (kind) {
    case 'repeated':
      return 'z'.repeat(length);
    case 'base64':
      return repeatTo(length, () => pick(BASE64, random));
    case 'dna':
      return repeatTo(length, () => pick('ACGT', random));
    case 'cjk':
      return repeatTo(length, code(0x4e00, 0x5000));
    case 'minified-js':
      return repeatTo(length, () => minifiedJs(random));
    case 'url':
      return repeatTo(length, () => url(random));
    case 'spaces':
      return ' '.repeat(length);
    case 'newlines':
      return repeatTo(length, () => (random() < 0.8 ? '\n' : '\r\n'));
    case 'punctuation':
      return repeatTo(length, () => pick('.,;:!?-_=+*/\\|<>()[]{}"\'`~^%$#@&', random));
    case 'mixed-whitespace':
      return repeatTo(length, () => pick([' ', '\t', '\n', '\u00a0', '\u3000', '\r'], random));
    case 'digits':
      return repeatTo(length, () => pick('0123456789', random));
    case 'hangul':
      return repeatTo(length, code(0xac00, 11_172));
    case 'cyrillic-run':
      return repeatTo(length, code(0x430, 32));
    case 'emoji':
      return repeatTo(length, code(0x1f300, 0x300));
    case 'combining':
      return repeatTo(length, () => `e${pick(['\u0301', '\u0300', '\u0302', '\u0308'], random)}`);
  }
}
