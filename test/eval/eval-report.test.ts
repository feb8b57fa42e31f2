import { describe, expect, it } from 'vitest';
import { checkFloors } from '../../eval/check-floors.js';
import { toEvalReport, toReportDocument } from '../../eval/eval-report.js';
import { toScoredCases } from './scored-case-fixture.js';

const WEIGHTS = { SIMPLE: 1, MODERATE: 2, COMPLEX: 4, EXPERT: 10 };
const RUN = { label: 'local', mode: 'local', file: 'f.jsonl', table: 't.yaml', model: null } as const;

function toReport() {
  const cases = toScoredCases([
    { gold: 'SIMPLE', predicted: 'SIMPLE', totalMs: 1, decision: { cause: 'heuristic' } },
    { gold: 'MODERATE', predicted: 'COMPLEX', acceptable: ['COMPLEX'], totalMs: 2 },
    {
      gold: 'EXPERT',
      predicted: 'MODERATE',
      totalMs: 3,
      decision: { llmCalled: true, cause: 'llm', stageLatencyMs: { llm: 50 } },
    },
    { gold: 'EXPERT', predicted: 'EXPERT', totalMs: 4, facets: { lang: 'en' } },
  ]);
  return toEvalReport({
    run: RUN,
    cases,
    malformed: [{ line: 9, message: 'bad' }],
    weights: WEIGHTS,
    worst: 5,
  });
}

describe('toEvalReport', () => {
  const report = toReport();

  it('has the headline fields as fractions 0..1', () => {
    expect(report).toMatchObject({
      label: 'local',
      lines: 5,
      n: 4,
      accuracy: 0.5,
      acceptable_accuracy: 0.75,
      under_routing_rate: 0.25,
      over_routing_rate: 0.25,
      llm_call_rate: 0.25,
    });
    // F1: SIMPLE 1, MODERATE 0 (1 predicted, wrong), COMPLEX 0, EXPERT P 1 R 1/2 -> 2/3.
    expect(report.macro_f1).toBeCloseTo((1 + 0 + 0 + 2 / 3) / 4, 12);
  });

  it('keeps the confusion matrix as gold -> predicted -> count and per-tier routing rates', () => {
    expect(report.confusion.EXPERT).toEqual({ SIMPLE: 0, MODERATE: 1, COMPLEX: 0, EXPERT: 1 });
    expect(report.per_tier.EXPERT).toMatchObject({
      support: 2,
      recall: 0.5,
      under_routing_rate: 0.5,
      over_routing_rate: 0,
    });
  });

  it('estimates cost against all-EXPERT for the predictions and for the gold labels', () => {
    expect(report.cost.relative_to_expert).toBeCloseTo((1 + 4 + 2 + 10) / 40, 12);
    expect(report.cost.gold_relative_to_expert).toBeCloseTo((1 + 2 + 10 + 10) / 40, 12);
  });

  it('summarizes latency of the whole call and of each stage that ran', () => {
    expect(report.latency_ms).toMatchObject({ n: 4, p50: 2, p95: 4, p99: 4 });
    expect(report.latency_ms.stages.llm).toEqual({ n: 1, p50: 50, p95: 50, p99: 50 });
    expect(report.causes).toEqual({ heuristic: 1, learned: 2, llm: 1, cache: 0, fallback: 0 });
  });

  it('lists misroutes with under-routes first and keeps malformed lines', () => {
    expect(report.worst_misroutes.map((miss) => miss.direction)).toEqual(['under', 'over']);
    expect(report.malformed).toEqual([{ line: 9, message: 'bad' }]);
  });

  it('survives a JSON round trip unchanged, so --json carries everything', () => {
    expect(JSON.parse(JSON.stringify(toReportDocument([report])))).toEqual(report);
  });

  it('wraps several runs as variants', () => {
    expect(toReportDocument([report, { ...report, label: 'b' }])).toMatchObject({
      file: 'f.jsonl',
      variants: [{ label: 'local' }, { label: 'b' }],
    });
  });

  it('is all zeros for an empty file', () => {
    const empty = toEvalReport({ run: RUN, cases: [], malformed: [], weights: WEIGHTS, worst: 5 });
    expect(empty).toMatchObject({ n: 0, accuracy: 0, macro_f1: 0, under_routing_rate: 0, llm_call_rate: 0 });
    expect(empty.latency_ms.p99).toBe(0);
  });
});

describe('checkFloors', () => {
  const report = toReport();
  const none = { minAccuracy: undefined, maxUnderRouting: undefined, strict: false };

  it('passes when no floor is set or every floor holds', () => {
    expect(checkFloors(report, none)).toEqual([]);
    expect(checkFloors(report, { ...none, minAccuracy: 0.5, maxUnderRouting: 0.25 })).toEqual([]);
  });

  it('names each floor that fails', () => {
    expect(checkFloors(report, { minAccuracy: 0.51, maxUnderRouting: 0.2, strict: true })).toEqual([
      'local: accuracy 50.00% is below --min-accuracy 51.00%',
      'local: under-routing 25.00% is above --max-under-routing 20.00%',
      'local: 1 malformed line(s) and --strict',
    ]);
  });
});
