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

  it('reads a CRLF split across two reads as one line end', () => {
    const parser = createSseParser();
    expect(parser.push('data: one\r')).toEqual([]);
    expect(parser.push('\ndata: two\r')).toEqual([]);
    expect(parser.push('\n\r')).toEqual(['one\ntwo']);
    expect(parser.push('\n')).toEqual([]);
    expect(parser.pending()).toBe('');
  });

  it('ends an event at a lone CR without waiting for the next read', () => {
    const parser = createSseParser();
    expect(parser.push('data: [DONE]\r\r')).toEqual(['[DONE]']);
    expect(parser.pending()).toBe('');
  });

  it('returns the same events at every split of a CRLF stream into two or three reads', () => {
    const body =
      ': ping\r\n\r\ndata: {"a":1}\r\n\r\ndata: one\r\ndata: two\r\n\r\n' +
      'event: x\rdata: lone\r\rdata:\r\n\r\ndata: [DONE]\r\n\r';
    const whole = createSseParser();
    expect(whole.push(body)).toEqual(['{"a":1}', 'one\ntwo', 'lone', '', '[DONE]']);
    expect(whole.pending()).toBe('');
    for (const cut of [body, `${body}data: cut\r`]) {
      const unsplit = createSseParser();
      const expected = unsplit.push(cut);
      for (let first = 1; first < cut.length; first += 1) {
        for (let second = first; second < cut.length; second += 1) {
          const parser = createSseParser();
          const reads = [cut.slice(0, first), cut.slice(first, second), cut.slice(second)];
          const events = reads.flatMap((read) => parser.push(read));
          expect(events, JSON.stringify(reads)).toEqual(expected);
          expect(parser.pending(), JSON.stringify(reads)).toBe(unsplit.pending());
        }
      }
    }
  });

  it('returns the same events however the body is cut into reads', () => {
    const body =
      ': ping\r\n\r\ndata: {"a":1}\n\ndata: x\rdata: y\r\r\n\ndata:[DONE]\n\n\n\ndata: z\r\n\r\ndata: cut';
    const whole = createSseParser();
    const expected = whole.push(body);
    expect(expected).toEqual(['{"a":1}', 'x\ny', '[DONE]', 'z']);
    for (const size of [1, 2, 3, 5, 7]) {
      const parser = createSseParser();
      const events: string[] = [];
      for (let index = 0; index < body.length; index += size)
        events.push(...parser.push(body.slice(index, index + size)));
      expect(events, `reads of ${size}`).toEqual(expected);
      expect(parser.pending(), `reads of ${size}`).toBe(whole.pending());
    }
  });

  it('returns a 4 MB event that arrives in 16-character reads, reading each read once', () => {
    const parser = createSseParser();
    const data = 'x'.repeat(4 * 1024 * 1024);
    const body = `data: ${data}\n\n`;
    const events: string[] = [];
    for (let index = 0; index < body.length; index += 16)
      events.push(...parser.push(body.slice(index, index + 16)));
    expect(events).toEqual([data]);
  });
});
