import { toEvalCase, type EvalCase } from './eval-case.js';

/** A line that was skipped, with why; reported, and counted in the totals. */
export interface MalformedLine {
  /** 1-based line number. */
  line: number;
  message: string;
}

export interface EvalFile {
  cases: EvalCase[];
  malformed: MalformedLine[];
  /** Non-blank lines: `cases.length + malformed.length`. */
  lines: number;
}

/**
 * Splits JSONL text into cases and malformed lines. Blank lines are not cases and are ignored;
 * a repeated id is malformed (its first line stays), so per-case reports stay unambiguous.
 */
export function parseEvalFile(text: string): EvalFile {
  const cases: EvalCase[] = [];
  const malformed: MalformedLine[] = [];
  const firstLineOfId = new Map<string, number>();
  text.split(/\r?\n/).forEach((content, index) => {
    if (content.trim().length === 0) return;
    const line = index + 1;
    const result = toEvalCase(content, line);
    if (!result.ok) {
      malformed.push({ line, message: result.message });
      return;
    }
    const first = firstLineOfId.get(result.value.id);
    if (first !== undefined) {
      malformed.push({ line, message: `duplicate id "${result.value.id}" (first on line ${first})` });
      return;
    }
    firstLineOfId.set(result.value.id, line);
    cases.push(result.value);
  });
  return { cases, malformed, lines: cases.length + malformed.length };
}
