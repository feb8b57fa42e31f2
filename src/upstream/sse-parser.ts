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

export function createSseParser(): SseParser {
  let buffer = '';
  return {
    push(text) {
      buffer += text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
      const events: string[] = [];
      let start = 0;
      let boundary = buffer.indexOf('\n\n');
      while (boundary !== -1) {
        const data = toEventData(buffer.slice(start, boundary));
        if (data !== undefined) events.push(data);
        start = boundary + 2;
        boundary = buffer.indexOf('\n\n', start);
      }
      if (start > 0) buffer = buffer.slice(start);
      return events;
    },
    pending: () => buffer,
  };
}
