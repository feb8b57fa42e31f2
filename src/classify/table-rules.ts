import type { ClassifierRuleConfig, RuleScope } from '../config/classifier-rule-schema.js';
import type { ChatMessage } from '../shared/chat.js';
import { KEYWORD_FLAGS, toKeywordsSource } from '../patterns/keyword-regex.js';
import { compileLinearRegex, type LinearRegex } from '../patterns/linear-regex.js';
import type { Tier } from '../shared/tier.js';
import { yieldToEventLoop } from '../shared/yield-to-event-loop.js';
import { RULE_TEXT_CHARS, toRuleText } from './rule-text.js';

/** A `classifier.rules` entry ready to run: its regex compiled once per table load. */
export interface TableRule {
  name: string;
  scope: RuleScope;
  /** A pattern on RE2 (linear-time by construction); keywords as a V8 regex of linear shape. */
  regex: LinearRegex;
  /** `tier`: the tier a match sets (the classifier is not called); `min_tier`: a floor. */
  effect: { kind: 'tier' | 'min_tier'; tier: Tier };
  /** The operator's reason, or what matched where. */
  reason: string;
}

export interface RuleMatches {
  /** The rules that matched, in table order. */
  matched: TableRule[];
  /** Characters the rules read together (each rule its part's text): at most rules x the text limit. */
  examinedChars: number;
}

/**
 * Characters the rules of one request read before they let the event loop run other work: one rule
 * over a whole 64 KiB part. On RE2, 20 pattern rules over 64 KiB took 0.03 ms in all when nothing
 * matched and 8-26 ms when one matched at the end (scripts/rule-pattern-cost.ts), a keyword rule under
 * 0.5 ms (2-core machine). @default 65536
 */
export const RULE_PAUSE_CHARS = 65_536;

export interface MatchOptions {
  /** Characters of each part read. @default RULE_TEXT_CHARS */
  limit?: number;
  /** Lets other work run; called after every `pauseEveryChars` characters read. @default setImmediate */
  pause?: () => Promise<void>;
  /** @default RULE_PAUSE_CHARS */
  pauseEveryChars?: number;
}

const SCOPE_NAMES: Readonly<Record<RuleScope, string>> = {
  last_user: 'the last user message',
  any_user: 'a user message',
  system: 'the system prompt',
  all: 'the conversation',
};

function toTableRule(config: ClassifierRuleConfig): TableRule {
  const regex =
    config.pattern === undefined
      ? new RegExp(toKeywordsSource(config.keywords ?? []), KEYWORD_FLAGS)
      : compileLinearRegex(config.pattern, config.flags ?? '');
  const what = config.pattern === undefined ? 'a keyword' : 'its pattern';
  const effect =
    config.tier === undefined
      ? { kind: 'min_tier' as const, tier: config.min_tier ?? 'EXPERT' }
      : { kind: 'tier' as const, tier: config.tier };
  return {
    name: config.name,
    scope: config.match,
    regex,
    effect,
    reason: config.reason ?? `matched ${what} in ${SCOPE_NAMES[config.match]}`,
  };
}

/**
 * Compiles a table's rules. Patterns run on RE2 (linear-time whatever their shape; the schema has
 * refused those RE2 cannot run); keyword regexes are linear by construction (keyword-regex.ts) and
 * run on V8, whose lookarounds they need.
 */
export function compileTableRules(configs: readonly ClassifierRuleConfig[]): TableRule[] {
  return configs.map(toTableRule);
}

/**
 * The rules whose regex matches their part of the conversation. Each part's text is cut at `limit`
 * characters (RULE_TEXT_CHARS) and built once, so the work is at most rules x limit characters of
 * linear regexes, whatever the request's size; one rule reads at most `limit` characters before the
 * event loop may run again.
 */
export async function matchTableRules(
  rules: readonly TableRule[],
  messages: readonly ChatMessage[],
  options: MatchOptions = {},
): Promise<RuleMatches> {
  const limit = options.limit ?? RULE_TEXT_CHARS;
  const pauseEvery = options.pauseEveryChars ?? RULE_PAUSE_CHARS;
  const texts = new Map<RuleScope, string>();
  const matched: TableRule[] = [];
  let examinedChars = 0;
  let sincePause = 0;
  for (const rule of rules) {
    if (sincePause >= pauseEvery) {
      await (options.pause ?? yieldToEventLoop)();
      sincePause = 0;
    }
    let text = texts.get(rule.scope);
    if (text === undefined) {
      text = toRuleText(messages, { scope: rule.scope, limit });
      texts.set(rule.scope, text);
    }
    examinedChars += text.length;
    sincePause += text.length;
    if (rule.regex.test(text)) matched.push(rule);
  }
  return { matched, examinedChars };
}
