/**
 * Masking for text that crosses a trust boundary: an upstream's error text can echo the request's
 * headers or its own configuration (a backend that reflects `Authorization` would hand its API key to
 * the client and the logs), and connection errors name internal hosts. Answers, logs, traces and the
 * dashboard all mask with these functions (see docs/redaction.md).
 *
 * Linear time by construction (see docs/regex-audit.md): every pattern starts where the character
 * before is outside the class its first run consumes (a lookbehind), so the runs tried from two start
 * positions never overlap, and every other quantifier is bounded. A megabyte of hostile text costs
 * each pattern one pass.
 */

/** Longest upstream message kept, characters: upstream messages are cut to this first. */
const MAX_TEXT = 2000;
const MASK = '***';
const INTERNAL = '<internal>';

/** Private key blocks, PEM; an unterminated one is masked to the next `-` (base64 has none). */
const PRIVATE_KEY = /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[^-]*(?:-----END[A-Z ]{0,40}PRIVATE KEY-----)?/g;
/** `scheme://user:password@`, `scheme://:password@` and `scheme://token@` in URLs of any scheme. */
const URL_CREDENTIALS = /(?<![\w+.-])([a-z][\w+.-]{0,30}:\/\/)[^\s/?#@"'<>]{1,256}@/gi;
/**
 * `name = value`, `name: value`, `"name": "value"`, `name=value&` (query strings), `Name: Bearer x`
 * (headers), escaped JSON; which names are secret is decided by SECRET_NAME on the captured name.
 */
const NAMED_VALUE =
  /(?<![\w.-])([\w.-]{1,64})(\\?["']?[ \t]{0,8}[:=][ \t]{0,8})((?:bearer|basic|digest|token|negotiate)[ \t]{1,8}[^\s"',;]{1,4096}|\\?"[^"\\\r\n]{1,512}\\?"|'[^'\r\n]{1,512}'|[^\s"',;&}<>\\]{1,4096})/gi;
/** A field name that holds a credential: `*_secret`, `*_token`, `*password`, `api_key`, `access_key`, ... */
const SECRET_NAME =
  /(?:secret|token|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credentials?|cookie|(?:^|[_.-])pwd)$/i;
/** `Bearer <token>` and `Basic <credentials>` outside a named field. */
const AUTH_SCHEME = /(?<![\w-])(Bearer|Basic)([ \t]{1,8})([^\s"',;]{1,4096})/gi;
/**
 * Token formats: OpenAI and Anthropic (`sk-`, `sk-proj-`, `sk-ant-`), GitHub (`ghp_` `gho_` `ghu_`
 * `ghs_` `ghr_` `github_pat_`), Hugging Face (`hf_`), AWS access key ids, Slack (`xoxb-` ...,
 * `xapp-`), JWTs (three base64url parts, the first `eyJ`), Google API keys (`AIza`). Runs whose class
 * holds their own prefix are bounded (500 characters, 1000 a JWT part; longer than any such token)
 * so the linear-time audit (test/regex-audit/regex-safety-audit.test.ts) proves them without the lookbehind.
 */
const TOKEN_SHAPES =
  /(?<![\w-])(?:sk-[\w-]{8,500}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,500}|hf_[A-Za-z0-9]{16,}|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}(?![A-Za-z0-9])|xox[abeoprs]-[\w-]{10,500}|xapp-[\w-]{10,500}|eyJ[\w-]{2,1000}\.[\w-]{2,1000}\.[\w-]{0,1000}|AIza[\w-]{35})/g;

/** A credential-looking value: any digit or symbol, or long (not a word such as `Bearer tokens`). */
function looksLikeCredential(value: string): boolean {
  return value.length >= 20 || /[\d._~+/=-]/.test(value);
}

/** A NAMED_VALUE match with its name, separator and value masked when the name is a secret's. */
function maskNamedValue(match: string, ...groups: string[]): string {
  const [name = '', separator = '', value = ''] = groups;
  if (!SECRET_NAME.test(name)) return match;
  const quote = /^\\?["']/.exec(value)?.[0] ?? '';
  return `${name}${separator}${quote}${MASK}${quote}`;
}

/** An AUTH_SCHEME match with its credential masked when it looks like one. */
function maskAuthScheme(match: string, ...groups: string[]): string {
  const [scheme = '', space = '', value = ''] = groups;
  return looksLikeCredential(value) ? `${scheme}${space}${MASK}` : match;
}

function maskToken(token: string): string {
  // `sk-learn-like` words are not keys; every OpenAI and Anthropic key has digits
  return token.startsWith('sk-') && !/\d/.test(token) ? token : MASK;
}

/**
 * Masks credentials in text of any length (logs may hold whole prompts): URL credentials, private
 * keys, named secret fields in any syntax, bearer credentials, known token formats, and the given
 * secret values (4 characters or more).
 */
export function maskSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let masked = text;
  for (const secret of known)
    if (secret !== undefined && secret.length >= 4) masked = masked.split(secret).join(MASK);
  return masked
    .replace(PRIVATE_KEY, MASK)
    .replace(URL_CREDENTIALS, `$1${MASK}@`)
    .replace(NAMED_VALUE, maskNamedValue)
    .replace(AUTH_SCHEME, maskAuthScheme)
    .replace(TOKEN_SHAPES, maskToken);
}

function toBounded(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}...` : text;
}

/** An upstream's message cut to 2000 characters, then masked (see maskSecrets). */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  return maskSecrets(toBounded(text), known);
}

/** A URL of any scheme (`https://...`, `redis://...`). */
const URL_PATTERN = /(?<![\w+.-])[a-z][\w+.-]{0,30}:\/\/[^\s"'<>)]+/gi;
const IPV4_PORT = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g;
const IPV6_BRACKETED = /\[[0-9a-f:.]{2,45}\](?::\d{1,5})?/gi;
/** A bare IPv6 address: with `::` and at least one group (`fd00::7`, `::1`), or all eight groups. */
const IPV6_BARE =
  /(?<![\w:])(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6}::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})?|::[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6}|[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7})(?![\w:])/gi;
/** A dotted host name, or localhost, with a port (`vllm-0.gpu.example:8000`); not `12:30`. */
const HOST_PORT = /\b(?:localhost|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,10}):\d{2,5}\b/gi;
/** Host names under private suffixes (`*.internal`, `*.local`, `*.svc.cluster.local`, ...) and `localhost`. */
const PRIVATE_HOST =
  /(?<![\w.-])(?:(?:[a-z0-9-]{1,63}\.){1,10}(?:internal|local|localdomain|lan|intranet|corp|home\.arpa|svc)|localhost)(?![\w-]|\.[\w-])/gi;

/**
 * Masks URLs, IP addresses, host:port pairs, private host names and the given internal names (the
 * table's deployment hosts, 4 characters or more): what a client without an admin key is not shown.
 */
export function redactAddresses(text: string, internalNames: readonly string[] = []): string {
  let masked = toBounded(text)
    .replace(URL_PATTERN, INTERNAL)
    .replace(IPV6_BRACKETED, INTERNAL)
    .replace(IPV6_BARE, INTERNAL)
    .replace(IPV4_PORT, INTERNAL)
    .replace(HOST_PORT, INTERNAL)
    .replace(PRIVATE_HOST, INTERNAL);
  for (const name of internalNames) if (name.length >= 4) masked = masked.split(name).join(INTERNAL);
  return masked;
}
