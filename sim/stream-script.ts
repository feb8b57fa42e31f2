import { toFaultNumber, toFaultString, type FaultSpec } from './fault-spec.js';
import { DONE_EVENT, type StreamFrames } from './stream-frames.js';

/** The broken event of the `malformed_chunk` fault: unterminated JSON, then the event separator. */
export const MALFORMED_EVENT = 'data: {"choices": [ {broken\n\n';
/** Content events written before a mid-stream fault strikes. @default 3 */
const DEFAULT_FAULT_AFTER = 3;
/** Empty-content events the `empty_chunks` fault sends before real content. */
const EMPTY_CHUNK_COUNT = 3;

/**
 * What a stream writes, decided before writing: `head` at once, `content` paced, then `trailer`;
 * then the response ends cleanly, the socket is destroyed, or nothing more happens (`stall`).
 */
export interface StreamScript {
  head: string;
  content: string[];
  trailer: string;
  ending: 'end' | 'destroy' | 'stall';
}

/** Applies the mid-stream faults (cut, stall, malformed, no_done, empty_chunks) to the frames. */
export function toStreamScript(frames: StreamFrames, fault: FaultSpec | undefined): StreamScript {
  const normal: StreamScript = {
    head: frames.head.join(''),
    content: frames.content,
    trailer: frames.tail.join('') + (frames.done ?? DONE_EVENT),
    ending: 'end',
  };
  if (fault === undefined) return normal;
  const after = Math.max(0, toFaultNumber(fault, 'after', DEFAULT_FAULT_AFTER));
  const before = frames.content.slice(0, after);
  switch (fault.name) {
    case 'cut_mid_stream':
      return { ...normal, content: before, trailer: '', ending: 'destroy' };
    case 'stall_mid_stream':
      return { ...normal, content: before, trailer: '', ending: 'stall' };
    case 'malformed_chunk':
      return toMalformed(normal, after, toFaultString(fault, 'then', 'end'));
    case 'no_done':
      return { ...normal, trailer: frames.tail.join('') };
    case 'empty_chunks':
      return { ...normal, head: normal.head + frames.empty.repeat(EMPTY_CHUNK_COUNT) };
    case 'rate_limit':
    case 'rate_limit_no_retry_after':
    case 'error_500_once':
    case 'error_503':
    case 'reset_before_headers':
    case 'no_response':
    case 'headers_then_nothing':
    case 'slow_first_token':
    case 'context_length':
    case 'bad_request':
    case 'flapping':
      return normal; // answered before the stream (request-faults.ts) or by timing (stream-timing.ts)
  }
}

/** `then=end` (default) ends the response without [DONE]; `then=continue` goes on normally. */
function toMalformed(normal: StreamScript, after: number, then: string): StreamScript {
  const before = normal.content.slice(0, after);
  if (then === 'continue') {
    return { ...normal, content: [...before, MALFORMED_EVENT, ...normal.content.slice(after)] };
  }
  return { ...normal, content: [...before, MALFORMED_EVENT], trailer: '' };
}
