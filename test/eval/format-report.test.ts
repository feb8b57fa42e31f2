import { describe, expect, it } from 'vitest';
import { toEvalReport, type EvalReport } from '../../eval/eval-report.js';
import { formatComparison } from '../../eval/format-comparison.js';
import { formatReport } from '../../eval/format-report.js';
import { toCellColor, toCellKind, toHeatmapSvg } from '../../eval/html-heatmap.js';
import { toConfusionMatrix } from '../../eval/confusion-matrix.js';
import { pairs, toScoredCases } from './scored-case-fixture.js';

function toReport(label: string, predictedForExpert: 'EXPERT' | 'COMPLEX'): EvalReport {
  return toEvalReport({
    run: { label, mode: 'local', file: 'f.jsonl', table: 't.yaml', model: 'm.json' },
    cases: toScoredCases([
      { gold: 'SIMPLE', predicted: 'SIMPLE', facets: { lang: 'en' } },
      { gold: 'EXPERT', predicted: predictedForExpert, facets: { lang: 'ko' }, prompt: '증명하세요' },
    ]),
    malformed: [],
    weights: { SIMPLE: 1, MODERATE: 2, COMPLEX: 3, EXPERT: 10 },
    worst: 5,
  });
}

describe('formatReport', () => {
  const text = formatReport(toReport('local', 'COMPLEX'));

  it('prints the headline metrics, the confusion matrix with per-tier scores and the breakdowns', () => {
    expect(text).toContain('autotier eval · f.jsonl · mode local · table t.yaml · model m.json');
    expect(text).toMatch(/exact accuracy\s+50\.0%/);
    expect(text).toMatch(/under-routing \(quality risk\)\s+50\.0%/);
    expect(text).toMatch(/cost vs all-EXPERT\s+20\.0%\s+\(gold labels: 55\.0%\)/);
    expect(text).toMatch(/^EXPERT\s+0\s+0\s+1\s+0\s+1\s+0\.0%\s+0\.0%\s+0\.000\s+100\.0%\s+0\.0%$/m);
    expect(text).toMatch(/^by lang\s+n\s+exact/m);
    expect(text).toMatch(/case-2 \(line 2\)\s+EXPERT -> COMPLEX\s+under 1/);
  });
});

describe('formatComparison', () => {
  it('puts each run in its own column', () => {
    const text = formatComparison([toReport('heuristic', 'COMPLEX'), toReport('local', 'EXPERT')]);
    expect(text).toMatch(/^\s+heuristic\s+local$/m);
    expect(text).toMatch(/^exact accuracy\s+50\.0%\s+100\.0%$/m);
    expect(text).toMatch(/^ko \(1\)\s+0\.0%\s+100\.0%$/m);
    expect(text).toMatch(/^heuristic\s+local$/m);
  });
});

describe('heatmap', () => {
  it('colours correct, under-routed and over-routed cells apart, darker for a larger share', () => {
    expect(toCellKind('COMPLEX', 'COMPLEX')).toBe('correct');
    expect(toCellKind('COMPLEX', 'SIMPLE')).toBe('under');
    expect(toCellKind('SIMPLE', 'EXPERT')).toBe('over');
    expect(toCellColor('under', 0).fill).toBe('hsl(4 62% 97%)');
    expect(toCellColor('under', 1)).toEqual({ fill: 'hsl(4 62% 42%)', text: '#ffffff' });
  });

  it('draws 16 cells with counts', () => {
    const svg = toHeatmapSvg(toConfusionMatrix(pairs('SIMPLE>SIMPLE', 'SIMPLE>EXPERT')));
    expect(svg.match(/<rect class="cell /g)).toHaveLength(16);
    expect(svg).toContain('gold SIMPLE, predicted EXPERT: 1 (50.0% of gold SIMPLE, over)');
  });
});
