/**
 * Cost of routing-table rules per request: `matchTableRules` over a normal prompt and over hostile
 * ones, for a table of keyword and pattern rules like an operator's and for the exponential pattern
 * `(?:ha|haha){1,16}!` on `ha` repeated. Prints the median and worst of `runs` timings in milliseconds.
 * The rules are compiled by `compileTableRules` without the schema, so the same script times an engine
 * that the schema would refuse a pattern for. Usage:
 *
 *   nice -n 19 node --import tsx scripts/rule-pattern-cost.ts [--runs 15] [--ha 4096,16384,32768]
 */
import { parseArgs } from 'node:util';
import { compileTableRules, matchTableRules, type TableRule } from '../src/classify/table-rules.js';
import type { ClassifierRuleConfig } from '../src/config/classifier-rule-schema.js';

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, ha: { type: 'string', default: '4096,16384' } },
});
const RUNS = Number(flags.runs);

const rule = (index: number, shape: Partial<ClassifierRuleConfig>): ClassifierRuleConfig => ({
  name: `rule-${index}`,
  match: 'last_user',
  min_tier: 'COMPLEX',
  ...shape,
});
/** What an operator writes: word-bounded alternatives with spaces, case-insensitive. */
const PATTERNS = Array.from({ length: 20 }, (_, index) =>
  rule(index, { pattern: `\\b(?:deploy|ship)\\s+to\\s+prod${index}\\b`, flags: 'i' }),
);
const KEYWORDS = Array.from({ length: 20 }, (_, index) =>
  rule(index, { keywords: ['prove', 'step by step', `zz${index}`, '증명'] }),
);
const PROSE =
  'Please review the deployment plan below and tell me whether shipping to production on Friday is wise. ';

/** Every pattern nearly matches at every sentence: its words, then the wrong number. */
const NEAR = 'We deploy to prod and ship  to   PROD, then deploy to production. ';

async function time(rules: readonly TableRule[], text: string): Promise<{ median: number; worst: number }> {
  const pause = (): Promise<void> => Promise.resolve();
  await matchTableRules(rules, [{ role: 'user', content: text }], { pause });
  const durations: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    // a new string each run, so nothing an engine keeps per input is reused
    const messages = [{ role: 'user' as const, content: `${text}${' '.repeat(run + 1)}` }];
    const started = performance.now();
    await matchTableRules(rules, messages, { pause });
    durations.push(performance.now() - started);
  }
  durations.sort((left, right) => left - right);
  return { median: durations[Math.floor(durations.length / 2)] ?? 0, worst: durations.at(-1) ?? 0 };
}

const cases: [string, ClassifierRuleConfig[], string][] = [
  ['20 patterns, 2 KB prose', PATTERNS, PROSE.repeat(20)],
  ['20 patterns, 64 KiB prose', PATTERNS, PROSE.repeat(656)],
  ['20 patterns, 64 KiB of near-matches', PATTERNS, NEAR.repeat(Math.ceil(65_536 / NEAR.length))],
  [
    '20 patterns, 64 KiB of near-matches, one match at the end',
    PATTERNS,
    `${NEAR.repeat(Math.ceil(65_000 / NEAR.length))} ship to prod19`,
  ],
  ['20 patterns, 64 KiB of spaces', PATTERNS, `deploy${' '.repeat(65_530)}`],
  ['20 keyword rules, 2 KB prose', KEYWORDS, PROSE.repeat(20)],
  ['a{0,16}b, 64 KiB of a', [rule(0, { pattern: 'a{0,16}b' })], 'a'.repeat(65_536)],
  ...flags.ha
    .split(',')
    .map((count): [string, ClassifierRuleConfig[], string] => [
      `(?:ha|haha){1,16}!, "ha" x ${count}`,
      [rule(0, { pattern: '(?:ha|haha){1,16}!' })],
      'ha'.repeat(Number(count)),
    ]),
  ...flags.ha
    .split(',')
    .map((count): [string, ClassifierRuleConfig[], string] => [
      `(?:ha|haha){1,16}!, "ha" x ${count} + " !"`,
      [rule(0, { pattern: '(?:ha|haha){1,16}!' })],
      `${'ha'.repeat(Number(count))} !`,
    ]),
];
for (const [name, configs, text] of cases) {
  const { median, worst } = await time(compileTableRules(configs), text);
  console.log(`${name.padEnd(40)} median ${median.toFixed(3)} ms  worst ${worst.toFixed(3)} ms`);
}
