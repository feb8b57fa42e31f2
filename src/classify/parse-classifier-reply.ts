import { z } from 'zod';
import { TIERS, type Tier } from '../shared/tier.js';

/** The classifier model's verdict. */
export interface LlmVerdict {
  complexity: Tier;
  reason: string;
  needsVision: boolean;
}

const verdictSchema = z.object({
  complexity: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
    z.enum(TIERS),
  ),
  reason: z.string().max(2000).default(''),
  needs_vision: z
    .preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean())
    .default(false),
});

export type ParsedReply = { ok: true; verdict: LlmVerdict } | { ok: false; problem: string };

/**
 * Drops every closed `<think>` block (as `replace(/<think>[\s\S]*?<\/think>/gi, '')` would), or
 * everything up to an unclosed one's end (Qwen3 thinking mode). One pass: the regex would read to the
 * end of the reply again from every unclosed `<think>`, quadratic in a reply full of them.
 */
function stripThinking(text: string): string {
  // global regexes for their lastIndex, so made per call: no state outlives it. The classes say what
  // the `i` flag would (without `u` no other character folds to these ASCII letters); V8 scans for a
  // literal `<` far faster than for a case-folded one.
  const opens = /<[tT][hH][iI][nN][kK]>/g;
  const closes = /<\/[tT][hH][iI][nN][kK]>/g;
  let kept = '';
  let from = 0;
  for (;;) {
    const open = findFrom(opens, text, from);
    const close = open === -1 ? -1 : findFrom(closes, text, open + '<think>'.length);
    if (close === -1) break;
    kept += text.slice(from, open);
    from = close + '</think>'.length;
  }
  const withoutBlocks = kept + text.slice(from);
  const close = withoutBlocks.lastIndexOf('</think>');
  return close === -1 ? withoutBlocks : withoutBlocks.slice(close + '</think>'.length);
}

/** Index of the first match of a global regex at or after `from`, or -1. */
function findFrom(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.exec(text)?.index ?? -1;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The first balanced `{...}` in the text, ignoring braces inside JSON strings. */
export function findJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start === -1) return undefined;
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE) depth += 1;
    else if (code === CLOSE_BRACE && --depth === 0) return text.slice(start, index + 1);
  }
  return undefined;
}

/**
 * Reads the classifier's reply robustly: a `<think>` block, code fences and prose around the JSON
 * are tolerated; the JSON itself must hold a valid tier.
 */
export function parseClassifierReply(reply: string): ParsedReply {
  const candidate = findJsonObject(stripThinking(reply));
  if (candidate === undefined) return { ok: false, problem: 'no JSON object in the reply' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(candidate);
  } catch {
    return { ok: false, problem: 'the JSON object does not parse' };
  }
  const result = verdictSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, problem: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  return {
    ok: true,
    verdict: {
      complexity: result.data.complexity,
      reason: result.data.reason,
      needsVision: result.data.needs_vision,
    },
  };
}
