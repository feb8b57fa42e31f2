import { describe, expect, it } from 'vitest';
import { createSseParser } from './sse-parser.js';

describe('createSseParser', () => {
  it('returns the data of complete events and keeps partial ones for later', () => {
    const parser = createSseParser();
    expect(parser.push('data: {"a":1}\n\ndata: {"b"')).toEqual(['{"a":1}']);
    expect(parser.push(':2}\n\n')).toEqual(['{"b":2}']);
    expect(parser.pending()).toBe('');
  });

  it('handles CRLF framing, comments and multi-line data', () => {
    const parser = createSseParser();
    expect(parser.push(': ping\r\n\r\ndata: one\r\ndata: two\r\n\r\n')).toEqual(['one\ntwo']);
  });

  it('returns every event of a burst in order and keeps the unfinished tail', () => {
    const parser = createSseParser();
    expect(parser.push('data: 1\n\ndata: 2\n\nevent: x\ndata: 3\n\n: ping\n\ndata: 4')).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(parser.pending()).toBe('data: 4');
    expect(parser.push('\n\n')).toEqual(['4']);
  });

  it('accepts data without the optional space', () => {
    expect(createSseParser().push('data:[DONE]\n\n')).toEqual(['[DONE]']);
  });

  it('leaves a cut event pending', () => {
    const parser = createSseParser();
    parser.push('data: {"cho');
    expect(parser.pending()).toBe('data: {"cho');
  });
});
