import type { ChatMessage } from '../shared/chat.js';

/**
 * Parts of `toMessageText` (shared/chat.ts) without building the whole text: its length, head and
 * tail, each the same as measuring or slicing the joined text, at a cost that depends on the window
 * (and the number of parts), not on a 20 MB message. `toMessageText` joins the text parts with
 * newlines and drops the empty ones before the first non-empty part.
 */
function toTexts(content: ChatMessage['content']): readonly string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content) {
    const text = part.type === 'text' ? part['text'] : undefined;
    if (typeof text === 'string' && (texts.length > 0 || text.length > 0)) texts.push(text);
  }
  return texts;
}

/** `toMessageText(content).length`. */
export function toMessageTextLength(content: ChatMessage['content']): number {
  if (typeof content === 'string') return content.length;
  const texts = toTexts(content);
  let length = Math.max(0, texts.length - 1);
  for (const text of texts) length += text.length;
  return length;
}

/** `toMessageText(content).slice(0, count)`. */
export function toMessageTextHead(content: ChatMessage['content'], count: number): string {
  if (typeof content === 'string') return content.slice(0, count);
  let head = '';
  for (const text of toTexts(content)) {
    if (head.length >= count) break;
    head = head.length === 0 ? text.slice(0, count) : `${head}\n${text.slice(0, count - head.length - 1)}`;
  }
  return head.slice(0, count);
}

/** `toMessageText(content).slice(-count)` (the empty string for a count of 0). */
export function toMessageTextTail(content: ChatMessage['content'], count: number): string {
  if (count <= 0) return '';
  if (typeof content === 'string') return content.slice(Math.max(0, content.length - count));
  const texts = toTexts(content);
  let tail = '';
  for (let index = texts.length - 1; index >= 0; index -= 1) {
    if (tail.length >= count) break;
    const text = texts[index] ?? '';
    const piece = text.slice(Math.max(0, text.length - (count - tail.length)));
    tail = index === texts.length - 1 ? piece : `${piece}\n${tail}`;
  }
  return tail.slice(Math.max(0, tail.length - count));
}
