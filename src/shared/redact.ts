/**
 * Masking for text that crosses a trust boundary: an upstream's error text can echo the request's
 * headers (a backend that reflects `Authorization` would hand its API key to the client and the
 * logs), and connection errors name internal hosts. Every pattern is linear: no nested or adjacent
 * overlapping quantifiers (see docs/regex-audit.md).
 */

/** Longest text masked, characters: upstream messages are cut to this first. */
const MAX_TEXT = 2000;
const MASK = '***';

/** `Bearer <token>` and `Basic <credentials>` anywhere in the text. */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
/** `authorization: x`, `"api_key": "x"`, `password=x` and the like. */
const NAMED_SECRET =
  /\b(authorization|x-api-key|api[-_]?key|access[-_]?token|token|password|passwd|secret)(["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi;
/** OpenAI-style keys (`sk-...`, `sk-proj-...`) and JWTs (`eyJ` + base64url parts joined by dots). */
const KEY_SHAPES = /\bsk-[\w-]{8,}|\beyJ[\w.-]{20,}/g;
/** `scheme://user:password@` in URLs. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/@:]+:[^\s/@]+@/gi;

/** Masks bearer tokens, named secrets, key-shaped strings and the given secret values. */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let masked = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}...` : text;
  for (const secret of known)
    if (secret !== undefined && secret.length >= 4) masked = masked.split(secret).join(MASK);
  return masked
    .replace(URL_CREDENTIALS, `$1${MASK}@`)
    .replace(AUTH_SCHEME, `$1 ${MASK}`)
    .replace(NAMED_SECRET, `$1$2${MASK}`)
    .replace(KEY_SHAPES, MASK);
}

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>)]+/gi;
const IPV4_PORT = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g;
const IPV6_PORT = /\[[0-9a-f:.]{2,45}\](?::\d{1,5})?/gi;
/** A dotted host name, or localhost, with a port (`vllm-0.gpu.internal:8000`); not `12:30`. */
const HOST_PORT = /\b(?:localhost|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,10}):\d{2,5}\b/gi;
const INTERNAL = '<internal>';

/** Masks URLs, IP addresses and host:port pairs: what a client without an admin key is not shown. */
export function redactAddresses(text: string): string {
  const bounded = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}...` : text;
  return bounded
    .replace(URL_PATTERN, INTERNAL)
    .replace(IPV6_PORT, INTERNAL)
    .replace(IPV4_PORT, INTERNAL)
    .replace(HOST_PORT, INTERNAL);
}
