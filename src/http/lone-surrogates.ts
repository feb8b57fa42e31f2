/**
 * JSON text may escape a lone UTF-16 surrogate (`"\uD800"`): RFC 8259 section 8.2 calls such a string
 * valid JSON whose behaviour is unpredictable. It is not Unicode text: a Python server's tokenizer
 * fails on it (a 5xx that would count against the deployment), and a client that cut a string between
 * the halves of an emoji sends one without meaning harm. The body reader replaces each lone surrogate,
 * in values and keys, with U+FFFD, as the WHATWG encoders do, so what autotier counts, classifies and
 * sends upstream is the same well-formed text.
 */

/** A JSON `\u` escape of a surrogate (D800-DFFF): only text holding one can parse to a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function toWellFormedString(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

function toWellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormedString(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) value[index] = toWellFormedValue(value[index]);
    return value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const wellFormed = toWellFormedString(key);
    const item = toWellFormedValue(object[key]);
    if (wellFormed !== key) Reflect.deleteProperty(object, key);
    // defineProperty, not assignment: an own `__proto__` key (JSON.parse makes one) stays a plain field
    Object.defineProperty(object, wellFormed, {
      value: item,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return object;
}

/**
 * `parsed` (JSON.parse of `text`) with every lone surrogate replaced by U+FFFD, in place. Walks the
 * value only when `text` holds a surrogate escape (one regex scan otherwise); the walk is linear and its
 * recursion bounded by the reader's depth limit.
 */
export function toWellFormedJson<T>(parsed: T, text: string): T {
  return SURROGATE_ESCAPE.test(text) ? (toWellFormedValue(parsed) as T) : parsed;
}
