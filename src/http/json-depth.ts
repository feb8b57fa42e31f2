const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whether the quote at `position` is escaped: an odd run of backslashes right before it. */
function isEscaped(bytes: Uint8Array, position: number): boolean {
  let backslashes = 0;
  for (let index = position - 1; index >= 0 && bytes[index] === BACKSLASH; index -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index of the quote closing the string opened at `start`, or the length when it never closes. */
function endOfString(bytes: Uint8Array, start: number): number {
  let quote = bytes.indexOf(QUOTE, start + 1);
  while (quote !== -1 && isEscaped(bytes, quote)) quote = bytes.indexOf(QUOTE, quote + 1);
  return quote === -1 ? bytes.length : quote;
}

/**
 * Whether a JSON text nests arrays and objects deeper than `limit` (the top-level object is depth 1).
 * One linear pass over the UTF-8 bytes, strings skipped with indexOf, stopping at the first level past
 * the limit; run before JSON.parse, so a 100k-deep body costs microseconds and never reaches the
 * recursive JSON.stringify calls that would overflow the stack. Malformed JSON is left to JSON.parse.
 */
export function exceedsJsonDepth(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index];
    if (byte === QUOTE) index = endOfString(bytes, index);
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth -= 1;
  }
  return false;
}
