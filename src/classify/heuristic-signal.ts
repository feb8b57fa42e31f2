import type { Tier } from '../shared/tier.js';
import type { ClassifyInput } from './classify-input.js';
import type { TextProfile } from './text-profile.js';

/** Log-scores added to SIMPLE, MODERATE, COMPLEX, EXPERT when a signal fires. */
export type TierWeights = readonly [simple: number, moderate: number, complex: number, expert: number];

/** The languages a pattern is written for; `any` runs on every text (code, math, stack traces). */
export type SignalLanguage = 'any' | 'en' | 'ko' | 'zh' | 'ja';

/** Regex sources per language. Patterns run on lowercased text, so they are written in lowercase. */
export type LanguagePatterns = Partial<Record<SignalLanguage, RegExp>>;

interface SignalBase {
  /** Stable snake_case name: reported in decisions and used as a feature by the learned model. */
  readonly name: string;
  readonly weights: TierWeights;
  /** In `local` mode the decision never goes below this tier when the signal fires. */
  readonly floor?: Tier;
  /** In `local` mode the decision never goes above this tier when the signal fires. */
  readonly ceiling?: Tier;
}

/**
 * A signal that fires when one of its patterns matches the last user message. Intent patterns (task
 * verbs, vocabulary) read only the head and tail of a long message; `scope: 'full'` patterns (code
 * blocks, stack traces, notation) read the whole examined text.
 */
export interface PatternSignal extends SignalBase {
  readonly patterns: LanguagePatterns;
  readonly scope?: 'intent' | 'full';
  /**
   * For a signal no linear regex can say: a function over its scope's text, for every language, that
   * stands in for `patterns` (then empty) and must stay linear in the text.
   */
  readonly matches?: (text: string) => boolean;
}

/** What a derived signal can look at: the input, its character profile and the pattern signals that fired. */
export interface SignalContext {
  readonly input: ClassifyInput;
  readonly profile: TextProfile;
  readonly fired: (name: string) => boolean;
}

/** A signal computed from lengths, conversation shape or other signals. */
export interface DerivedSignal extends SignalBase {
  readonly test: (context: SignalContext) => boolean;
}

/**
 * Whitespace that does not end a line. With `m`, `^${LINE_SPACE}*X` matches exactly where `^\s*X`
 * does when X cannot start with whitespace (a match then starts at the last line start of the run),
 * but reads each line once: `^\s*` reads a run of blank lines again from each of its line starts,
 * quadratic in the run.
 */
export const LINE_SPACE = '[^\\S\\n\\r\\u2028\\u2029]';

/** Alternation of literal phrases or regex fragments, compiled once at module load; `m` for line anchors. */
export function anyOf(fragments: readonly string[], flags = ''): RegExp {
  return new RegExp(`(?:${fragments.join('|')})`, flags);
}

/** Alternation bounded by word edges, for English and other space-separated languages. */
export function anyWord(fragments: readonly string[]): RegExp {
  return new RegExp(`\\b(?:${fragments.join('|')})\\b`);
}
