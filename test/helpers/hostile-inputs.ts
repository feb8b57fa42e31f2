import type { ClassifyRequest } from '../../src/classify/decision.js';
import type { ChatMessage, ContentPart } from '../../src/shared/chat.js';

/**
 * Texts built to hurt the classifier's regexes and per-character loops: one character of
 * each class repeated, short alternations that keep a pattern half-matching, and the attack strings
 * a ReDoS fuzzer (recheck) found for the signal patterns. Shared by the adversarial tests and
 * scripts/classifier-abuse-cost.ts.
 */
export const HOSTILE_UNITS: Readonly<Record<string, string>> = Object.freeze({
  letter: 'z',
  digit: '7',
  space: ' ',
  newline: '\n',
  punctuation: '.',
  'open paren': '(',
  backslash: '\\',
  dollar: '$',
  cjk: '中',
  hangul: '한',
  kana: 'か',
  'combining mark': 'e\u0301',
  emoji: '😀',
  'lone surrogate': '\ud800',
  'word space': 'a ',
  'dotted digits': '1.1.',
  'open parens': '((',
  'open braces': '{{',
  dashes: '--',
  'blank lines': '\n\n',
  'carriage returns': '\r',
  'indented code': '\n        x = f(y);',
  'list items': '- a\n',
  'numbered items': '1. a\n',
  'digit comma': '0,',
  'path segments': 't.h/',
  'make a': 'make a ',
  'is is': 'is ',
  'korean steps': '단먼저서',
  'chinese steps': '首先其',
  'list starts after CR': '\t*\t\u0000\r',
  'stack frames': '  at x(',
  'think tags': '<think>',
});

/** `unit` repeated to exactly `length` UTF-16 code units (a surrogate pair may be cut at the end). */
export function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

export interface HostileRequest {
  name: string;
  request: ClassifyRequest;
  /** UTF-16 code units of text in the request. */
  length: number;
}

const user = (content: string | ContentPart[]): ChatMessage => ({ role: 'user', content });

/** One request per hostile unit, its last user message `length` code units long. */
export function toHostileRequests(length: number): HostileRequest[] {
  return Object.entries(HOSTILE_UNITS).map(([name, unit]) => ({
    name,
    request: { messages: [user(repeatTo(unit, length))] },
    length,
  }));
}

/**
 * Requests whose size is in their shape, by name: many short messages, many content parts, deep
 * indentation on one line, one very long line, and every earlier turn long (system, assistant, user).
 */
export const HOSTILE_SHAPES: Readonly<Record<string, (length: number) => HostileRequest>> = Object.freeze({
  'many messages': (length: number): HostileRequest => {
    const count = Math.max(1, Math.floor(length / 100));
    const messages = Array.from({ length: count }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: repeatTo('hi ', 100),
    }));
    return { name: 'many messages', request: { messages }, length: count * 100 };
  },
  'many parts': (length: number): HostileRequest => {
    const count = Math.max(1, Math.floor(length / 20));
    const parts = Array.from({ length: count }, () => ({ type: 'text', text: repeatTo('(', 20) }));
    return { name: 'many parts', request: { messages: [user(parts)] }, length: count * 20 };
  },
  'one long line': (length: number): HostileRequest => {
    const line = `${repeatTo(' ', length / 2)}${repeatTo('x=1;', length / 2)}`;
    return { name: 'one long line', request: { messages: [user(line)] }, length: line.length };
  },
  'long earlier turns': (length: number): HostileRequest => {
    const long = repeatTo('\n  def f(x):', length);
    const messages: ChatMessage[] = [
      { role: 'system', content: long },
      user(long),
      { role: 'assistant', content: [{ type: 'text', text: long }] },
      user('and now?'),
    ];
    return { name: 'long earlier turns', request: { messages }, length: 3 * long.length };
  },
});

export function toHostileShapes(length: number): HostileRequest[] {
  return Object.values(HOSTILE_SHAPES).map((build) => build(length));
}
