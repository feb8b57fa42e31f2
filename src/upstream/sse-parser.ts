/**
 * Incremental parser for `text/event-stream` bodies as OpenAI-compatible servers send them
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html). Only `data:` fields matter;
 * comments and other fields are skipped.
 */
export interface SseParser {
  /** Feeds decoded text; returns the data payloads of every event completed by it. */
  push(text: string): string[];
  /** Text received after the last complete event (a cut stream leaves it non-empty). */
  pending(): string;
  /** Characters of that text, without joining it. */
  pendingLength(): number;
}

function toEventData(block: string): string | undefined {
  // the usual event is one `data:` line: no split, one slice
  if (block.startsWith('data:') && !block.includes('\n'))
    return block.slice(block.charCodeAt(5) === 32 ? 6 : 5);
  let data: string | undefined;
  for (const line of block.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

/**
 * Each push reads only its own text: the event in progress is kept as a list of pieces and joined
 * once, when its blank line arrives. Searching and appending to one growing string instead reads
 * (and copies) the whole event again on every push: quadratic in an event that arrives in many small
 * reads. A `\r` at the end of a push ends its line at once (a lone `\r` is a line end in the spec, and
 * the stream may end there); a `\n` that starts the next push is then its CRLF's second half, not a
 * second line end.
 */
export function createSseParser(): SseParser {
  let pieces: string[] = [];
  let pieceCharacters = 0;
  let endsWithNewline = false;
  let endsWithCarriageReturn = false;
  const pendingText = (): string => pieces.join('');
  return {
    push(text) {
      if (text === '') return [];
      let chunk = endsWithCarriageReturn && text.startsWith('\n') ? text.slice(1) : text;
      endsWithCarriageReturn = text.endsWith('\r');
      if (chunk.includes('\r')) chunk = chunk.replace(/\r\n?/g, '\n');
      const events: string[] = [];
      const emit = (block: string): void => {
        const data = toEventData(block);
        if (data !== undefined) events.push(data);
      };
      let from = 0;
      let emitted = false;
      if (endsWithNewline && chunk.startsWith('\n')) {
        emit(pendingText().slice(0, -1));
        from = 1;
        emitted = true;
      }
      for (
        let boundary = chunk.indexOf('\n\n', from);
        boundary !== -1;
        boundary = chunk.indexOf('\n\n', from)
      ) {
        emit(emitted ? chunk.slice(from, boundary) : pendingText() + chunk.slice(0, boundary));
        from = boundary + 2;
        emitted = true;
      }
      const rest = chunk.slice(from);
      if (emitted) {
        pieces = rest === '' ? [] : [rest];
        pieceCharacters = rest.length;
      } else if (rest !== '') {
        pieces.push(rest);
        pieceCharacters += rest.length;
      }
      if (emitted || rest !== '') endsWithNewline = rest.endsWith('\n');
      return events;
    },
    pending: pendingText,
    pendingLength: () => pieceCharacters,
  };
}
