/**
 * GPT-2's byte-to-unicode map, used by byte-level BPE vocabularies (Qwen's tokenizer.json spells every
 * token in it): printable Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 onwards in
 * byte order.
 */
export function toByteLevelAlphabet(): string[] {
  const alphabet: string[] = [];
  let unprintable = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable =
      (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
    alphabet.push(String.fromCharCode(printable ? byte : 256 + unprintable++));
  }
  return alphabet;
}

/**
 * Writes the UTF-8 bytes of text[start, end) into `out` (which must hold 3 bytes per UTF-16 unit) and
 * returns their number. A lone surrogate becomes U+FFFD, as TextEncoder does.
 */
export function toUtf8(text: string, range: { start: number; end: number }, out: Uint8Array): number {
  let length = 0;
  for (let index = range.start; index < range.end; index++) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      out[length++] = code;
      continue;
    }
    if (code < 0x800) {
      out[length++] = 0xc0 | (code >> 6);
      out[length++] = 0x80 | (code & 0x3f);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const low = index + 1 < range.end ? text.charCodeAt(index + 1) : 0;
      if (code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        index += 1;
        out[length++] = 0xf0 | (code >> 18);
        out[length++] = 0x80 | ((code >> 12) & 0x3f);
        out[length++] = 0x80 | ((code >> 6) & 0x3f);
        out[length++] = 0x80 | (code & 0x3f);
        continue;
      }
      code = 0xfffd;
    }
    out[length++] = 0xe0 | (code >> 12);
    out[length++] = 0x80 | ((code >> 6) & 0x3f);
    out[length++] = 0x80 | (code & 0x3f);
  }
  return length;
}
