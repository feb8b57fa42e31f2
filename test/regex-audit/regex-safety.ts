import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { analyseAmbiguity } from './regex-ambiguity.js';
import { UnsupportedRegexError } from './regex-char-sets.js';
import { buildPositionAutomaton, TooLargeError, type RegexFlags } from './regex-positions.js';

/**
 * Whether a regex can backtrack catastrophically, decided statically (no timing, no sample text): the
 * worst-case number of steps on a text of n characters, as `degree` (1 linear, k for n^k, Infinity for
 * exponential). The regex audit (regex-safety-audit.test.ts) runs it over the classifier's own patterns
 * and every regex literal on the request path; table patterns run on RE2 instead (linear-regex.ts).
 * Errs on the unsafe side: assertions are assumed to pass, and syntax it does not model (backreferences,
 * strings in classes) or a regex too large to analyse is reported unsafe.
 */
export interface RegexSafety {
  safe: boolean;
  /** Undefined when the regex could not be analysed. */
  degree: number | undefined;
  /** Why it is unsafe, or what it was found to be. */
  reason: string;
}

export interface RegexSafetyOptions {
  /**
   * Highest polynomial degree accepted: 1 for a regex over text of any length; 2 is acceptable only
   * for a regex that reads a bounded window (900 characters: under a million steps). @default 1
   */
  maxDegree?: number;
  /**
   * The regex is run at every position of the text even after a match (a scan that resumes one
   * character after each match), so a match costs what it reads at every position. @default false
   */
  everyPosition?: boolean;
}

/** Positions (character-matching elements after unrolling) analysed at most: 2,000 alternatives of ten letters. */
const MAX_POSITIONS = 20_000;
/** Bounded repeats up to this are unrolled exactly; larger ones are read as unbounded on a second try. */
const EXACT_UNROLL_LIMIT = 1000;
const COARSE_UNROLL_LIMIT = 4;
/** Steps of the ambiguity search before it gives up (and calls the regex unsafe): well under a second. */
const WORK_LIMIT = 3_000_000;

export function checkRegexSafety(
  source: string,
  flags: string,
  options: RegexSafetyOptions = {},
): RegexSafety {
  const maxDegree = options.maxDegree ?? 1;
  let pattern: AST.Pattern;
  let parsedFlags: RegexFlags;
  try {
    const parser = new RegExpParser({ ecmaVersion: 2025 });
    parsedFlags = parser.parseFlags(flags);
    pattern = parser.parsePattern(source, 0, source.length, {
      unicode: parsedFlags.unicode,
      unicodeSets: parsedFlags.unicodeSets,
    });
  } catch (error) {
    return { safe: false, degree: undefined, reason: `not a valid regex: ${(error as Error).message}` };
  }
  try {
    const degree = toWorstDegree(pattern.alternatives, {
      flags: parsedFlags,
      reverse: false,
      everyPosition: options.everyPosition ?? false,
    });
    if (degree === undefined) return { safe: false, degree, reason: 'too complex to analyse' };
    return { safe: degree <= maxDegree, degree, reason: describeDegree(degree) };
  } catch (error) {
    if (error instanceof UnsupportedRegexError) {
      return { safe: false, degree: undefined, reason: `uses ${error.message}, which is not checked` };
    }
    if (error instanceof TooLargeError)
      return { safe: false, degree: undefined, reason: 'too large to analyse' };
    throw error;
  }
}

function describeDegree(degree: number): string {
  if (degree === Infinity) return 'exponential backtracking';
  if (degree === 1) return 'linear';
  return `polynomial backtracking of degree ${degree}`;
}

interface Part {
  flags: RegexFlags;
  reverse: boolean;
  everyPosition: boolean;
}

/** Worst degree of a pattern and of each lookaround inside it (each tried at every text position). */
function toWorstDegree(alternatives: readonly AST.Alternative[], part: Part): number | undefined {
  const automaton = buildAutomaton(alternatives, part);
  const ambiguity = analyseAmbiguity(automaton, { workLimit: WORK_LIMIT, everyPosition: part.everyPosition });
  if (ambiguity.kind === 'unknown') return undefined;
  let worst = ambiguity.kind === 'exponential' ? Infinity : ambiguity.degree;
  for (const lookaround of automaton.lookarounds) {
    const flags = { ...part.flags, sticky: false };
    // a lookaround is tried wherever the engine reaches it, and reads to its end even when it passes
    const degree = toWorstDegree(lookaround.alternatives, {
      flags,
      reverse: lookaround.reverse,
      everyPosition: true,
    });
    if (degree === undefined) return undefined;
    worst = Math.max(worst, degree);
  }
  return worst;
}

function buildAutomaton(
  alternatives: readonly AST.Alternative[],
  part: Part,
): ReturnType<typeof buildPositionAutomaton> {
  const options = { flags: part.flags, maxPositions: MAX_POSITIONS, reverse: part.reverse };
  try {
    return buildPositionAutomaton(alternatives, { ...options, unrollLimit: EXACT_UNROLL_LIMIT });
  } catch (error) {
    if (!(error instanceof TooLargeError)) throw error;
    return buildPositionAutomaton(alternatives, { ...options, unrollLimit: COARSE_UNROLL_LIMIT });
  }
}
