import { RouterError } from '../shared/errors.js';

/** How a request body is compressed, from its `content-encoding`. */
export type BodyEncoding = 'identity' | 'gzip' | 'deflate' | 'br';

const ENCODINGS: ReadonlyMap<string, BodyEncoding> = new Map([
  ['', 'identity'],
  ['identity', 'identity'],
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
  ['br', 'br'],
]);

/** `application/json` and any `application/<vendor>+json`. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
const UTF8 = new Set(['utf-8', 'utf8']);

/** Client text quoted in an error message, cut so a huge header cannot make a huge answer. */
function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

/**
 * Checks the `content-type` of a JSON body: JSON or `+json`, and UTF-8 when a charset is given
 * (RFC 8259 allows no other). A missing content-type is read as JSON: OpenAI SDKs always send one,
 * and minimal clients that send none still work. Anything else is 415 naming `content-type`
 * (`curl -d` sends application/x-www-form-urlencoded unless told otherwise).
 */
export function checkJsonContentType(contentType: string | undefined): void {
  if (contentType === undefined || contentType.trim() === '') return;
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (!JSON_MEDIA_TYPE.test(mediaType))
    throw new RouterError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `content-type ${quote(mediaType)} is not supported: send the body as application/json`,
      param: 'content-type',
    });
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8.has(charset))
    throw new RouterError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `charset ${quote(charset)} is not supported: JSON bodies must be UTF-8`,
      param: 'content-type',
    });
}

/** The body's compression from `content-encoding` (one coding), or 415 naming the header. */
export function toBodyEncoding(contentEncoding: string | undefined): BodyEncoding {
  const encoding = ENCODINGS.get((contentEncoding ?? '').trim().toLowerCase());
  if (encoding !== undefined) return encoding;
  throw new RouterError({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: `content-encoding ${quote(contentEncoding ?? '')} is not supported: use identity, gzip, deflate or br`,
    param: 'content-encoding',
  });
}
