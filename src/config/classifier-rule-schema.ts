import { z } from 'zod';
import { isUsableKeyword } from '../patterns/keyword-regex.js';
import { toLargestRepeat } from '../patterns/regex-repeat-width.js';
import { compileLinearRegex } from '../patterns/linear-regex.js';
import { TIERS } from '../shared/tier.js';

/** Most rules a table may have: each one reads up to RULE_TEXT_CHARS per request. @default 200 */
export const MAX_CLASSIFIER_RULES = 200;
/** Longest `pattern`, in characters. */
export const MAX_PATTERN_CHARS = 1000;
/** Most `keywords` of one rule, and the longest keyword, in characters. */
export const MAX_KEYWORDS = 100;
export const MAX_KEYWORD_CHARS = 100;

/**
 * Largest product of nested counted repeats (`{n,m}`) in a pattern: RE2 unrolls them, so the automaton
 * it runs (and the work per character when its DFA cache overflows) grows with this product. @default 16
 */
export const MAX_PATTERN_REPEAT = 16;

/** Flags a `pattern` may carry: no `g`/`y` (state between matches), `d`, or `v`. */
const PATTERN_FLAGS = new Set(['i', 'm', 's', 'u']);

/** Which text of the conversation a rule reads (see classify/rule-text.ts). */
export const RULE_SCOPES = ['last_user', 'any_user', 'system', 'all'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

const ruleName = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, . _ - only');

type Issue = (path: (string | number)[], message: string) => void;

/** Reports each flag that is not allowed or repeated; true when there is none. */
function checkFlags(flags: string, issue: Issue): boolean {
  const seen = new Set<string>();
  let valid = true;
  for (const flag of flags) {
    if (!PATTERN_FLAGS.has(flag)) issue(['flags'], `flag "${flag}" is not allowed; use only i, m, s, u`);
    else if (seen.has(flag)) issue(['flags'], `flag "${flag}" is given twice`);
    valid &&= PATTERN_FLAGS.has(flag) && !seen.has(flag);
    seen.add(flag);
  }
  return valid;
}

/**
 * A pattern must run on RE2 (linear-time by construction: no backtracking whatever its shape) and
 * repeat little: it reads up to 64 KiB of client text per request, and the automaton RE2 builds grows
 * with nested counted repeats. Lookaround and backreferences are refused (no linear-time engine has
 * them); see patterns/linear-regex.ts for what a JavaScript pattern means on RE2.
 */
function checkPattern(pattern: string, flags: string, issue: Issue): void {
  try {
    compileLinearRegex(pattern, flags);
  } catch (error) {
    issue(['pattern'], `refused: ${(error as Error).message}`);
    return;
  }
  try {
    const repeat = toLargestRepeat(pattern, flags);
    if (repeat > MAX_PATTERN_REPEAT)
      issue(
        ['pattern'],
        `counted repeats read up to ${repeat} characters again from every position; at most ${MAX_PATTERN_REPEAT} (\`.{0,16}\`), or use two rules or keywords`,
      );
  } catch (error) {
    issue(['pattern'], `could not be read: ${(error as Error).message}`);
  }
}

/**
 * One operator rule of `classifier.rules`: a regex `pattern` or a list of `keywords`,
 * the part of the conversation it reads, and the tier it implies for `model: "auto"` requests.
 */
export const classifierRuleSchema = z
  .object({
    /** Shown in /v1/route's `rules` and in x-autotier-reason; unique in the table. */
    name: ruleName,
    /**
     * A JavaScript regex source (no slashes), at most 1000 characters, run on RE2 (linear-time); one
     * with lookaround or backreferences is refused at load.
     */
    pattern: z.string().min(1).max(MAX_PATTERN_CHARS).optional(),
    /** Words or phrases, matched case-insensitively on word boundaries; a phrase's spaces match any whitespace. */
    keywords: z.array(z.string().max(MAX_KEYWORD_CHARS)).min(1).max(MAX_KEYWORDS).optional(),
    /** Flags of `pattern`, from i, m, s, u. @default '' */
    flags: z.string().max(4).optional(),
    /** Which text is read: the last user message, every user message, the system prompts, or every message. @default last_user */
    match: z.enum(RULE_SCOPES).default('last_user'),
    /** The tier a match sets, replacing the classifier (which is then not called). */
    tier: z.enum(TIERS).optional(),
    /** The lowest tier a match allows: the classified tier is raised to it. */
    min_tier: z.enum(TIERS).optional(),
    /** Why, shown in /v1/route's `rules`. @default "matched <pattern|keywords> in <match>" */
    reason: z.string().min(1).max(200).optional(),
  })
  .strict()
  .superRefine((rule, context) => {
    const issue: Issue = (path, message) => context.addIssue({ code: 'custom', path, message });
    if ((rule.pattern === undefined) === (rule.keywords === undefined))
      issue([], 'needs exactly one of pattern or keywords');
    if ((rule.tier === undefined) === (rule.min_tier === undefined))
      issue([], 'needs exactly one of tier or min_tier');
    if (rule.flags !== undefined && rule.pattern === undefined)
      issue(['flags'], 'flags apply to pattern only (keywords are always case-insensitive)');
    const flagsValid = rule.flags === undefined || checkFlags(rule.flags, issue);
    rule.keywords?.forEach((keyword, index) => {
      if (!isUsableKeyword(keyword)) issue(['keywords', index], 'an empty keyword matches nothing');
    });
    if (rule.pattern !== undefined && flagsValid) checkPattern(rule.pattern, rule.flags ?? '', issue);
  });

/**
 * `classifier.rules`: applied in table order to `model: "auto"` requests before the classifier;
 * see docs/classifier-rules.md. @default []
 */
export const classifierRulesSchema = z
  .array(classifierRuleSchema)
  .max(MAX_CLASSIFIER_RULES)
  .superRefine((rules, context) => {
    const first = new Map<string, number>();
    rules.forEach((rule, index) => {
      const earlier = first.get(rule.name);
      if (earlier !== undefined)
        context.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate rule name "${rule.name}" (also rule ${earlier})`,
        });
      else first.set(rule.name, index);
    });
  });

export type ClassifierRuleConfig = z.infer<typeof classifierRuleSchema>;
