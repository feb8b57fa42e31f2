import type { ClassifierCause } from '../src/classify/decision.js';
import { toMessageText } from '../src/shared/chat.js';
import type { Tier } from '../src/shared/tier.js';
import type { EvalCase } from './eval-case.js';
import { toTierDistance } from './routing-rates.js';
import type { ScoredCase } from './scored-case.js';

/** Characters of a prompt shown next to a misroute. */
export const EXCERPT_CHARS = 160;

export interface Misroute {
  id: string;
  line: number;
  gold: Tier;
  predicted: Tier;
  /** Tiers between gold and predicted, 1..3. */
  distance: number;
  direction: 'under' | 'over';
  cause: ClassifierCause;
  /** Probability of the predicted tier, 0..1. */
  confidence: number;
  signals: readonly string[];
  /** Routing-table rules that changed the classifier's tier (none when the table has no rules). */
  rules: readonly string[];
  /** Start of the last user message, whitespace folded. */
  excerpt: string;
}

/** The last user message (or last message), whitespace folded, cut to `EXCERPT_CHARS`. */
export function toExcerpt(evalCase: EvalCase): string {
  const messages = evalCase.request.messages;
  const last = [...messages].reverse().find((message) => message.role === 'user') ?? messages.at(-1);
  const text = toMessageText(last?.content).replace(/\s+/g, ' ').trim();
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS - 1)}…`;
}

function toMisroute(scored: ScoredCase): Misroute {
  const distance = toTierDistance(scored);
  return {
    id: scored.case.id,
    line: scored.case.line,
    gold: scored.gold,
    predicted: scored.predicted,
    distance: Math.abs(distance),
    direction: distance < 0 ? 'under' : 'over',
    cause: scored.decision.cause,
    confidence: scored.decision.confidence,
    signals: scored.decision.signals,
    rules: scored.rules?.changed ?? [],
    excerpt: toExcerpt(scored.case),
  };
}

/**
 * Wrong predictions, worst first: larger tier distance, then under-routes (a quality risk) before
 * over-routes, then the more confident mistake, then file order.
 */
export function toWorstMisroutes(cases: readonly ScoredCase[], limit: number): Misroute[] {
  return cases
    .filter((scored) => scored.predicted !== scored.gold)
    .map(toMisroute)
    .sort(
      (a, b) =>
        b.distance - a.distance ||
        Number(b.direction === 'under') - Number(a.direction === 'under') ||
        b.confidence - a.confidence ||
        a.line - b.line,
    )
    .slice(0, Math.max(0, limit));
}
