import { toTierRank, type Tier } from '../shared/tier.js';
import type { ClassifyInput } from './classify-input.js';
import type { TierProbabilities } from './decision.js';
import type { DerivedSignal, PatternSignal, SignalContext, SignalLanguage } from './heuristic-signal.js';
import { CHAT_SIGNALS } from './heuristic-signals-chat.js';
import { CODE_SIGNALS } from './heuristic-signals-code.js';
import { CONTEXT_DERIVED_SIGNALS } from './heuristic-signals-context.js';
import { MATH_SIGNALS } from './heuristic-signals-math.js';
import { REASONING_SIGNALS } from './heuristic-signals-reasoning.js';
import { SCOPE_DERIVED_SIGNALS, SCOPE_SIGNALS } from './heuristic-signals-scope.js';
import { SHAPE_SIGNALS } from './heuristic-signals-shape.js';
import { createPatternSet, type PatternSet } from './pattern-set.js';
import { WRITING_SIGNALS } from './heuristic-signals-writing.js';
import { toTextProfile, type TextProfile } from './text-profile.js';
import { toTierProbabilities } from './tier-probabilities.js';

export const PATTERN_SIGNALS: readonly PatternSignal[] = [
  ...CHAT_SIGNALS,
  ...WRITING_SIGNALS,
  ...CODE_SIGNALS,
  ...MATH_SIGNALS,
  ...REASONING_SIGNALS,
  ...SCOPE_SIGNALS,
];

export const DERIVED_SIGNALS: readonly DerivedSignal[] = [
  ...SHAPE_SIGNALS,
  ...SCOPE_DERIVED_SIGNALS,
  ...CONTEXT_DERIVED_SIGNALS,
];

/** Every signal name, pattern signals first; the learned model gives each one a feature. */
export const SIGNAL_NAMES: readonly string[] = [...PATTERN_SIGNALS, ...DERIVED_SIGNALS].map(
  ({ name }) => name,
);

/**
 * Log-scores before any signal fires. "Nothing fired" means an ordinary request, which the rubric
 * makes MODERATE-ish (about 0.22 / 0.40 / 0.27 / 0.12), never SIMPLE.
 */
export const BASE_SCORES = Object.freeze([0, 0.6, 0.2, -0.6] as const);

/** Intent patterns read at most this many characters from the start and end of the examined text. */
const INTENT_HEAD_CHARS = 400;
const INTENT_TAIL_CHARS = 200;

/** The patterns of one language and scope, scanned together; `signals[i]` owns the set's pattern i. */
interface PatternGroup {
  language: SignalLanguage;
  scope: 'intent' | 'full';
  set: PatternSet;
  signals: readonly number[];
}

const PATTERN_GROUPS: readonly PatternGroup[] = toPatternGroups(PATTERN_SIGNALS);

/** Every regex the pattern signals' scans run, with the scope whose text it reads (for the ReDoS test). */
export const PATTERN_SET_REGEXES: readonly { regex: RegExp; scope: 'intent' | 'full' }[] =
  PATTERN_GROUPS.flatMap(({ scope, set }) => set.regexes.map((regex) => ({ regex, scope })));

function toPatternGroups(signals: readonly PatternSignal[]): PatternGroup[] {
  const languages: readonly SignalLanguage[] = ['any', 'en', 'ko', 'zh', 'ja'];
  return (['intent', 'full'] as const).flatMap((scope) =>
    languages.flatMap((language) => {
      const owners = signals.flatMap((signal, index) =>
        (signal.scope ?? 'intent') === scope && signal.patterns[language] !== undefined ? [index] : [],
      );
      const patterns = owners.map((index) => signals[index]?.patterns[language] ?? /(?!)/);
      return owners.length === 0
        ? []
        : [{ language, scope, set: createPatternSet(patterns), signals: owners }];
    }),
  );
}

export interface HeuristicResult {
  probabilities: TierProbabilities;
  /** Names of the signals that fired, in table order. */
  signals: readonly string[];
  /** Highest `floor` among the fired signals. */
  floor: Tier | undefined;
  /** Lowest `ceiling` among the fired signals. */
  ceiling: Tier | undefined;
  profile: TextProfile;
}

/** Runs every signal on the input and turns the fired signals' weights into tier probabilities. */
export function scoreHeuristics(input: ClassifyInput): HeuristicResult {
  const profile = toTextProfile(input.lowerText);
  const languages = toLanguages(profile);
  const signals: string[] = [];
  const logits = [...BASE_SCORES];
  const bounds: { floor: Tier | undefined; ceiling: Tier | undefined } = {
    floor: undefined,
    ceiling: undefined,
  };
  const matched = matchPatternSignals(toScopeTexts(input), languages);
  PATTERN_SIGNALS.forEach((signal, index) => {
    if (matched[index] === true) applySignal(signal, { signals, logits, bounds });
  });
  const context: SignalContext = { input, profile, fired: (name) => signals.includes(name) };
  for (const signal of DERIVED_SIGNALS) {
    if (signal.test(context)) applySignal(signal, { signals, logits, bounds });
  }
  return { probabilities: toTierProbabilities(logits), signals, ...bounds, profile };
}

/** The text each pattern scope reads: `full` the examined text, `intent` its head and tail. */
export function toScopeTexts(input: ClassifyInput): Readonly<Record<'intent' | 'full', string>> {
  return { full: input.lowerText, intent: toIntentText(input.lowerText) };
}

/** Head and tail of a long text: where a long prompt states what it wants. */
function toIntentText(text: string): string {
  if (text.length <= INTENT_HEAD_CHARS + INTENT_TAIL_CHARS) return text;
  return `${text.slice(0, INTENT_HEAD_CHARS)}\n${text.slice(text.length - INTENT_TAIL_CHARS)}`;
}

/** Which language patterns are worth running: English and `any` always, the others only when their script occurs. */
function toLanguages(profile: TextProfile): readonly SignalLanguage[] {
  const languages: SignalLanguage[] = ['any', 'en'];
  if (profile.hangul > 0) languages.push('ko');
  if (profile.han > 0) languages.push('zh');
  if (profile.han > 0 || profile.kana > 0) languages.push('ja');
  return languages;
}

/** Per pattern signal (table order): true when one of its patterns for `languages` matches its scope's text. */
function matchPatternSignals(
  texts: Readonly<Record<'intent' | 'full', string>>,
  languages: readonly SignalLanguage[],
): boolean[] {
  const matched = PATTERN_SIGNALS.map(({ matches, scope }) => matches?.(texts[scope ?? 'intent']) ?? false);
  for (const group of PATTERN_GROUPS) {
    if (!languages.includes(group.language)) continue;
    const found = group.signals.map((index) => matched[index] === true);
    group.set.scan(texts[group.scope], found);
    found.forEach((hit, position) => {
      const index = group.signals[position];
      if (hit && index !== undefined) matched[index] = true;
    });
  }
  return matched;
}

interface Accumulator {
  signals: string[];
  logits: number[];
  bounds: { floor: Tier | undefined; ceiling: Tier | undefined };
}

function applySignal(signal: PatternSignal | DerivedSignal, { signals, logits, bounds }: Accumulator): void {
  signals.push(signal.name);
  for (let rank = 0; rank < 4; rank += 1) logits[rank] = (logits[rank] ?? 0) + (signal.weights[rank] ?? 0);
  if (
    signal.floor !== undefined &&
    (bounds.floor === undefined || toTierRank(signal.floor) > toTierRank(bounds.floor))
  ) {
    bounds.floor = signal.floor;
  }
  if (
    signal.ceiling !== undefined &&
    (bounds.ceiling === undefined || toTierRank(signal.ceiling) < toTierRank(bounds.ceiling))
  ) {
    bounds.ceiling = signal.ceiling;
  }
}
