import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ClassificationDecision, Classifier } from '../../src/classify/decision.js';
import { compileTableRules } from '../../src/classify/table-rules.js';
import { classifierRulesSchema } from '../../src/config/classifier-rule-schema.js';
import { toEvalCase, type EvalCase } from '../../eval/eval-case.js';
import { toEvalReport } from '../../eval/eval-report.js';
import { formatComparison } from '../../eval/format-comparison.js';
import { formatReport } from '../../eval/format-report.js';
import { toHtmlReport } from '../../eval/html-report.js';
import { runEval } from '../../eval/run-eval.js';

const RULES = [
  { name: 'greeting', pattern: '^(?:hi|hello)\\b', flags: 'i', tier: 'SIMPLE' },
  { name: 'proofs', keywords: ['prove that'], min_tier: 'EXPERT' },
  { name: 'unused', keywords: ['kubernetes'], min_tier: 'COMPLEX' },
];
const tableRules = compileTableRules(classifierRulesSchema.parse(RULES));

function evalCase(line: number, prompt: string, label: string): EvalCase {
  const parsed = toEvalCase(JSON.stringify({ id: `case-${line}`, prompt, label }), line);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

const CASES = [
  evalCase(1, 'hello, how are you?', 'SIMPLE'),
  evalCase(2, 'please prove that sqrt(2) is irrational', 'EXPERT'),
  evalCase(3, 'hi! prove that 7 is prime', 'MODERATE'),
  evalCase(4, 'write a haiku', 'MODERATE'),
];

/** Answers MODERATE after calling the LLM, for every case; counts its calls. */
function moderateClassifier(): Classifier & { calls: number } {
  const classifier = {
    calls: 0,
    classify(): Promise<ClassificationDecision> {
      classifier.calls += 1;
      return Promise.resolve({
        tier: 'MODERATE',
        cause: 'llm',
        confidence: 1,
        signals: [],
        needsVision: false,
        stageLatencyMs: { llm: 1 },
        llmCalled: true,
      });
    },
  };
  return classifier;
}

describe('the eval with routing-table rules', () => {
  it('scores the tiers after the rules and reports accuracy without them and each rule’s count', async () => {
    const classifier = moderateClassifier();
    const cases = await runEval({ cases: CASES, classifier, tableRules, concurrency: 1, now: () => 0 });
    // the eval classifies every case, so it can report the classifier alone
    expect(classifier.calls).toBe(4);
    expect(cases.map((scored) => scored.predicted)).toEqual(['SIMPLE', 'EXPERT', 'EXPERT', 'MODERATE']);
    expect(cases[2]?.rules).toEqual({
      classified: 'MODERATE',
      fired: ['greeting', 'proofs'],
      changed: ['greeting', 'proofs'],
      exact: true,
    });
    const report = toEvalReport({
      run: { label: 'local', mode: 'local', file: 'cases.jsonl', table: 'table.yaml', model: null },
      cases,
      malformed: [],
      weights: { SIMPLE: 1, MODERATE: 2, COMPLEX: 4, EXPERT: 8 },
      worst: 5,
      tableRules,
    });
    expect(report.accuracy).toBe(0.75);
    // exact-rule cases call no classifier in the service, so no LLM either
    expect(report.llm_call_rate).toBe(0.5);
    expect(report.rules).toEqual({
      count: 3,
      cases_fired: 3,
      cases_changed: 3,
      cases_exact: 2,
      rules: [
        { name: 'greeting', kind: 'tier', tier: 'SIMPLE', fired: 2, changed: 2 },
        { name: 'proofs', kind: 'min_tier', tier: 'EXPERT', fired: 2, changed: 2 },
        { name: 'unused', kind: 'min_tier', tier: 'COMPLEX', fired: 0, changed: 0 },
      ],
      without_rules: {
        accuracy: 0.5,
        acceptable_accuracy: 0.5,
        under_routing_rate: 0.25,
        over_routing_rate: 0.25,
      },
    });
    expect(report.worst_misroutes).toMatchObject([{ id: 'case-3', rules: ['greeting', 'proofs'] }]);
    const text = formatReport(report);
    expect(text).toContain('table rules: 3, matched 3 of 4 cases, changed the tier of 3 (2 set exactly');
    expect(text).toMatch(/without rules +50\.0% +50\.0% +25\.0% +25\.0%/);
    expect(text).toMatch(/with rules +75\.0%/);
    expect(text).toMatch(/proofs +>= EXPERT +2 +2/);
    expect(text).toContain('rule greeting,proofs');
    expect(formatComparison([report, { ...report, label: 'other', rules: null }])).toMatch(
      /exact without table rules +50\.0% +-/,
    );
    expect(toHtmlReport([report])).toContain('Table rules');
  });

  it('reports no rules section for a table without rules', async () => {
    const cases = await runEval({
      cases: CASES,
      classifier: moderateClassifier(),
      concurrency: 1,
      now: () => 0,
    });
    expect(cases.every((scored) => scored.rules === undefined && scored.predicted === 'MODERATE')).toBe(true);
    const report = toEvalReport({
      run: { label: 'local', mode: 'local', file: 'cases.jsonl', table: 'table.yaml', model: null },
      cases,
      malformed: [],
      weights: { SIMPLE: 1, MODERATE: 2, COMPLEX: 4, EXPERT: 8 },
      worst: 5,
    });
    expect(report.rules).toBeNull();
    expect(formatReport(report)).not.toContain('table rules');
  });
});

describe('npm run eval -- --table <table with rules>', () => {
  const folder = mkdtempSync(join(tmpdir(), 'autotier-eval-rules-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('applies the table’s rules and writes their counts to the JSON', async () => {
    const file = join(folder, 'cases.jsonl');
    writeFileSync(
      file,
      `${CASES.map((item) => JSON.stringify({ id: item.id, messages: item.request.messages, label: item.label })).join('\n')}\n`,
    );
    const table = join(folder, 'table.yaml');
    const tier = { group: ['a'] };
    writeFileSync(
      table,
      stringify({
        deployments: [{ id: 'a', model: 'm', base_url: 'http://127.0.0.1:9/v1', context_window: 32768 }],
        tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        classifier: { mode: 'local', rules: RULES },
      }),
    );
    const json = join(folder, 'out.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'eval/cli.ts',
        file,
        '--mode',
        'heuristic',
        '--table',
        table,
        '--json',
        json,
        '--quiet',
      ],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    expect(stdout).toContain('table rules: 3, matched 3 of 4 cases');
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      rules: { rules: { name: string; fired: number }[] };
    };
    expect(report.rules.rules.map((rule) => [rule.name, rule.fired])).toEqual([
      ['greeting', 2],
      ['proofs', 2],
      ['unused', 0],
    ]);
  }, 60_000);
});
