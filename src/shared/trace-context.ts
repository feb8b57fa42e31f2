/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) for headers a client sends: `traceparent`
 * and `tracestate` are client bytes, so both are checked and bounded before anything keeps them.
 */

/** A valid `traceparent`, split. */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The trace-flags byte (bit 0: sampled). */
  flags: number;
}

/** Longest `traceparent` read, in characters (version 00 is 55; later versions may append fields). */
const MAX_TRACEPARENT_CHARS = 256;
/** Longest `tracestate` kept, in characters, and most list members (the spec's limits). */
const MAX_TRACESTATE_CHARS = 512;
const MAX_TRACESTATE_MEMBERS = 32;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[^]*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** A tracestate member: `key=value`, key simple or `tenant@system`, value printable without `,` and `=`. */
const TRACESTATE_MEMBER =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The parts of a client's `traceparent`, or undefined when it is absent or malformed (a malformed one
 * is ignored, never an error). Version 00 must be exactly 55 characters; version ff is invalid; a
 * later version may carry more fields after the flags, which are not kept.
 */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  if (header === undefined || header.length > MAX_TRACEPARENT_CHARS) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined)
    return undefined;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/**
 * A client's `tracestate` when every member is well formed and it is within the spec's limits
 * (512 characters, 32 members), else undefined: an invalid tracestate is dropped, the traceparent kept.
 */
export function parseTracestate(header: string | undefined): string | undefined {
  if (header === undefined || header.length > MAX_TRACESTATE_CHARS) return undefined;
  const members = header
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  return members.every((member) => TRACESTATE_MEMBER.test(member)) ? members.join(',') : undefined;
}

/** A version-00 `traceparent` header value. */
export function toTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${(parent.flags & 0xff).toString(16).padStart(2, '0')}`;
}
