import { describe, expect, it } from 'vitest';
import { RouterError } from '../shared/errors.js';
import { checkJsonContentType, toBodyEncoding } from './body-format.js';

function rejection(action: () => unknown): { code: string; param: string | undefined; message: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof RouterError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected a RouterError');
}

describe('the content-type of a JSON body', () => {
  it('accepts JSON, +json types, UTF-8 charsets in any spelling, and no content-type at all', () => {
    for (const type of [
      undefined,
      '',
      'application/json',
      'Application/JSON; charset=UTF-8',
      'application/json;charset="utf8"',
      'application/vnd.api+json',
      'application/json; boundary=x',
    ])
      expect(() => checkJsonContentType(type)).not.toThrow();
  });

  it('answers 415 naming content-type for another media type', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; b=1'])
      expect(rejection(() => checkJsonContentType(type))).toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        param: 'content-type',
      });
  });

  it('answers 415 naming content-type and the charset for a charset other than UTF-8', () => {
    const error = rejection(() => checkJsonContentType('application/json; charset=latin1'));
    expect(error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', param: 'content-type' });
    expect(error.message).toContain('latin1');
  });

  it('quotes at most 100 characters of the client header in the message', () => {
    const error = rejection(() => checkJsonContentType(`text/${'x'.repeat(10_000)}`));
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('the content-encoding of a body', () => {
  it('knows identity, gzip, deflate and br, in any case', () => {
    expect(toBodyEncoding(undefined)).toBe('identity');
    expect(toBodyEncoding('Identity')).toBe('identity');
    expect(toBodyEncoding('GZIP')).toBe('gzip');
    expect(toBodyEncoding('x-gzip')).toBe('gzip');
    expect(toBodyEncoding(' deflate ')).toBe('deflate');
    expect(toBodyEncoding('br')).toBe('br');
  });

  it('answers 415 naming content-encoding for any other coding, a list of codings included', () => {
    for (const encoding of ['foo', 'compress', 'zstd', 'gzip, br'])
      expect(rejection(() => toBodyEncoding(encoding))).toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        param: 'content-encoding',
      });
  });
});
