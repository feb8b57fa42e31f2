import type { ChatMessage, ContentPart } from '../shared/chat.js';

/**
 * What the classifier reads of `toMessageText(content)` (shared/chat.ts), without building it: its
 * length, head and tail, each the same as measuring or slicing the joined text. One pass over the
 * parts for the length and head, and a pass from the end that stops once the tail is full, so a 20 MB
 * message (or a million parts) costs a pass over its parts, never a 20 MB string. `toMessageText`
 * joins the text parts with newlines and drops the empty ones before the first non-empty part.
 */
export interface MessageTextWindow {
  /** `toMessageText(content).length`. */
  length: number;
  /** `toMessageText(content).slice(0, headChars)`. */
  head: string;
  /** The last `tailChars` characters (the empty string for 0). */
  tail: string;
}

export function toMessageTextWindow(
  content: ChatMessage['content'],
  { headChars, tailChars }: { headChars: number; tailChars: number },
): MessageTextWindow {
  if (typeof content === 'string') {
    return { length: content.length, head: content.slice(0, headChars), tail: toTail(content, tailChars) };
  }
  if (!Array.isArray(content)) return { length: 0, head: '', tail: '' };
  let length = 0;
  let head = '';
  let first = -1;
  for (let index = 0; index < content.length; index += 1) {
    const text = toPartText(content[index]);
    if (text === undefined || (first === -1 && text.length === 0)) continue;
    if (first === -1) {
      first = index;
      length = text.length;
      head = text.slice(0, headChars);
      continue;
    }
    length += 1 + text.length;
    if (head.length < headChars) head = `${head}\n${text.slice(0, headChars - head.length - 1)}`;
  }
  const tail = first === -1 ? '' : toPartsTail(content, { first, count: tailChars });
  return { length, head: head.slice(0, headChars), tail };
}

function toPartText(part: ContentPart | undefined): string | undefined {
  if (part?.type !== 'text') return undefined;
  const text = part['text'];
  return typeof text === 'string' ? text : undefined;
}

function toTail(text: string, count: number): string {
  return count <= 0 ? '' : text.slice(Math.max(0, text.length - count));
}

/** The last `count` characters of the joined text parts from index `first` on. */
function toPartsTail(
  parts: readonly ContentPart[],
  { first, count }: { first: number; count: number },
): string {
  let tail: string | undefined;
  for (let index = parts.length - 1; index >= first && (tail?.length ?? 0) < count; index -= 1) {
    const text = toPartText(parts[index]);
    if (text === undefined) continue;
    const piece = toTail(text, count - (tail?.length ?? 0));
    tail = tail === undefined ? piece : `${piece}\n${tail}`;
  }
  return toTail(tail ?? '', count);
}
