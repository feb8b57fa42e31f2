import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTableRules, matchTableRules } from '../../src/classify/table-rules.js';
import { RULE_TEXT_CHARS } from '../../src/classify/rule-text.js';
import { classifierRulesSchema } from '../../src/config/classifier-rule-schema.js';

/**
 * Rule patterns of the families that backtrack exponentially or polynomially on V8 (overlapping
 * alternatives under a repeat, nested stars, a star before a loop over the same characters), each one
 * loaded through the table schema and, when accepted, matched through `matchTableRules` on a whole
 * rule text of its repeated unit with a tail that makes it fail. On V8, `(?:ha|haha){1,16}!` took
 * 1.5 s over 2 KiB and 12 s over 16 KiB; on RE2 every accepted pattern must finish well under a second
 * even on a loaded 2-core machine.
 */
const BOUND_MS = 1500;

const unit = fc.constantFrom('a', 'ab', 'ha', 'aa', 'x y', 'é');
const loop = (inner: string) =>
  fc.constantFrom(`(?:${inner})+`, `(?:${inner})*`, `(?:${inner}){1,16}`, `(?:${inner}){2,8}`);
const shape: fc.Arbitrary<{ pattern: string; unit: string }> = fc
  .tuple(unit, unit, fc.integer({ min: 0, max: 7 }), fc.constantFrom('!', '$', 'z', '\\d'))
  .chain(([first, second, kind, tail]) => {
    const overlap = [
      `${first}|${first}${first}`,
      `${first}|${first}?`,
      `${first}+`,
      `${first}*`,
      `[${first.replace(' ', '')}]|${first.slice(0, 1)}`,
      `${first}|${second}|${first}${second}`,
      `.*${first}`,
      `\\w+\\s?`,
    ][kind];
    return loop(overlap ?? first).chain((inner) =>
      fc
        .constantFrom(inner, `(?:${inner})+`, `^${inner}`, `(?:${inner}|${second})*`)
        .map((pattern) => ({ pattern: `${pattern}${tail}`, unit: first })),
    );
  });
const flags = fc.constantFrom('', 'i', 'u', 'iu', 'm', 's');

function load(pattern: string, patternFlags: string): ReturnType<typeof compileTableRules> | undefined {
  const parsed = classifierRulesSchema.safeParse([
    { name: 'generated', pattern, ...(patternFlags === '' ? {} : { flags: patternFlags }), tier: 'EXPERT' },
  ]);
  return parsed.success ? compileTableRules(parsed.data) : undefined;
}

describe('rule patterns of the backtracking families', () => {
  it('are refused at load or matched over a whole rule text of their unit within the bound', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        shape,
        flags,
        fc.constantFrom('?', ' !', '\n!'),
        async (generated, patternFlags, tail) => {
          const rules = load(generated.pattern, patternFlags);
          if (rules === undefined) return;
          accepted += 1;
          const body = generated.unit.repeat(Math.ceil((RULE_TEXT_CHARS - 2) / generated.unit.length));
          const content = `${body.slice(0, RULE_TEXT_CHARS - tail.length)}${tail}`;
          const started = performance.now();
          await matchTableRules(rules, [{ role: 'user', content }], { pause: () => Promise.resolve() });
          const elapsed = performance.now() - started;
          expect(elapsed, `/${generated.pattern}/${patternFlags}`).toBeLessThan(BOUND_MS);
        },
      ),
      { numRuns: 60 },
    );
    expect(accepted).toBeGreaterThan(20);
  });

  it('accepts (?:ha|haha){1,16}! on RE2 and refuses its lookaround and backreference versions', () => {
    expect(load('(?:ha|haha){1,16}!', '')).toBeDefined();
    expect(load('(?:ha|haha){1,16}(?=!)', '')).toBeUndefined();
    expect(load('(ha)(?:\\1|haha){1,16}!', '')).toBeUndefined();
  });
});
