import { toHostileText, type HostileKind } from '../test/helpers/hostile-texts.js';
import type { AbuseResult, LoadRunner } from './load.js';

/** 1 MB single-message bodies: text a tokenizer's pre-tokenizer does not split. */
export const ABUSE_KINDS = [
  'repeated',
  'base64',
  'dna',
  'cjk',
  'minified-js',
] as const satisfies readonly HostileKind[];
export type AbuseKind = (typeof ABUSE_KINDS)[number];

const MEGABYTE = 1_000_000;

export interface AbuseMeasurement {
  /** A normal `auto` chat request to the zero-latency backend, measured the same way in the same run. */
  baseline: AbuseResult;
  bodies: Record<AbuseKind, AbuseResult>;
  requests: number;
}

/** A single-message `auto` request of about 1 MB of UTF-8 text of one kind (CJK is 3 bytes a character). */
function toAbuseBody(kind: AbuseKind): string {
  const characters = kind === 'cjk' ? Math.floor(MEGABYTE / 3) : MEGABYTE;
  const content = toHostileText(kind, characters, 16);
  return JSON.stringify({ model: 'auto', messages: [{ role: 'user', content }], max_tokens: 16 });
}

/**
 * The abuse section: each 1 MB body `requests` times, one after another, through autotier's chat
 * endpoint (the count decides it fits no window: 400 context_length_exceeded, answered by autotier
 * alone), with GET /health probed every 5 ms beside them; first the same for a normal request.
 */
export async function measureAbuse(options: {
  runner: LoadRunner;
  autotierBaseUrl: string;
  normalBody: unknown;
  requests: number;
  log: (message: string) => void;
}): Promise<AbuseMeasurement> {
  const url = `${options.autotierBaseUrl}/chat/completions`;
  const healthUrl = `${new URL(options.autotierBaseUrl).origin}/health`;
  const run = (body: unknown): Promise<AbuseResult> =>
    options.runner.abuse({ url, healthUrl, body, requests: options.requests });
  // one unmeasured pass over every kind first: code paths, counting threads and heap sizes settle
  options.log('abuse: warm-up pass');
  for (const kind of ABUSE_KINDS)
    await options.runner.abuse({ url, healthUrl, body: toAbuseBody(kind), requests: 2, warmup: 1 });
  options.log('abuse: baseline (normal auto requests) with /health probes');
  const baseline = await run({ ...(options.normalBody as object), model: 'auto' });
  const bodies = {} as Record<AbuseKind, AbuseResult>;
  for (const kind of ABUSE_KINDS) {
    options.log(`abuse: 1 MB of ${kind}`);
    bodies[kind] = await run(toAbuseBody(kind));
  }
  return { baseline, bodies, requests: options.requests };
}
