/**
 * Chooses the cascade's `calibrated` settings on unseen sources: reads the
 * source-held-out local predictions of dev (scripts/source-held-out-predictions.ts), simulates the
 * classifier LLM at `--accuracy` (gold tier, else one tier off; several seeds), and prints the curve
 * (threshold against exact, under-routing and LLM share) of each `disagreement` rule, then the
 * calibrated settings with the best exact accuracy within `--max-under` and `--max-share`.
 *
 *   npx tsx scripts/cascade-calibration.ts artifacts/source-held-out-dev.jsonl
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toNeighbourConfusion } from '../src/classify/combine-with-verdict.js';
import type { CascadeCombination, Disagreement } from '../src/classify/cascade-decision.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import { toSimulatedVerdict } from '../sim/classifier-responder.js';
import type { Tier } from '../src/shared/tier.js';
import {
  formatCascadeCurve,
  toCascadeCurve,
  type CurveItem,
  type CurvePoint,
  type CurveRules,
} from '../eval/cascade-curve.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    accuracy: { type: 'string', default: '0.87' },
    seeds: { type: 'string', default: '8' },
    'max-under': { type: 'string', default: '0.06' },
    'max-share': { type: 'string', default: '0.40' },
  },
});
interface Prediction {
  id: string;
  label: Tier;
  tier: Tier;
  confidence: number;
  probabilities: TierProbabilities;
}
const predictions = readFileSync(positionals[0] ?? 'artifacts/source-held-out-dev.jsonl', 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Prediction);
const accuracy = Number(values.accuracy);
const seeds = Array.from({ length: Number(values.seeds) }, (_, index) => index + 1);
const thresholds = Array.from({ length: 29 }, (_, step) => Number((0.3 + step * 0.025).toFixed(3)));
const values_ = Array.from({ length: 61 }, (_, step) => Number((step * 0.02).toFixed(2)));
const itemsFor = (seed: number): CurveItem[] =>
  predictions.map((prediction) => ({
    gold: prediction.label,
    local: prediction,
    verdict: toSimulatedVerdict(prediction.label, prediction.id, { accuracy, seed }),
  }));
const itemSets = seeds.map(itemsFor);

/** The curve averaged over the verdict seeds. */
function meanCurve(combination: CascadeCombination, gate: CurveRules['gate'] = 'confidence'): CurvePoint[] {
  const cutoffs = gate === 'value' ? values_ : thresholds;
  const rules: CurveRules = { gate, combination, threshold: 0.6 };
  const curves = itemSets.map((items) => toCascadeCurve(items, cutoffs, rules));
  return cutoffs.map((threshold, index) => {
    const mean = (pick: (point: CurvePoint) => number): number =>
      curves.reduce((sum, curve) => sum + pick(curve[index] ?? EMPTY), 0) / curves.length;
    return {
      threshold,
      exact: mean((point) => point.exact),
      under: mean((point) => point.under),
      over: mean((point) => point.over),
      llmShare: mean((point) => point.llmShare),
    };
  });
}
const EMPTY: CurvePoint = { threshold: 0, exact: 0, under: 0, over: 0, llmShare: 0 };

const combination = (disagreement: Disagreement, localWeight = 1, underPenalty = 1): CascadeCombination => ({
  disagreement,
  calibration: { confusion: toNeighbourConfusion(accuracy), localWeight, underPenalty },
});
const noLlm =
  toCascadeCurve(itemSets[0] ?? [], [0], {
    gate: 'confidence',
    combination: combination('llm'),
    threshold: 0.6,
  })[0] ?? EMPTY;
console.log(
  `${predictions.length} dev prompts, local stage on unseen sources: exact ${(100 * noLlm.exact).toFixed(1)}%, under ${(100 * noLlm.under).toFixed(1)}%, over ${(100 * noLlm.over).toFixed(1)}%; simulated LLM accuracy ${accuracy}, ${seeds.length} seeds`,
);
for (const rule of ['round_up', 'llm', 'local'] as const)
  console.log(`\n${formatCascadeCurve(`disagreement: ${rule}`, meanCurve(combination(rule)))}`);

const maxUnder = Number(values['max-under']);
const maxShare = Number(values['max-share']);
interface Candidate {
  gate: CurveRules['gate'];
  localWeight: number;
  underPenalty: number;
  point: CurvePoint;
}
const candidates: Candidate[] = [];
for (const gate of ['confidence', 'value'] as const)
  for (const localWeight of [0.5, 0.75, 1])
    for (const underPenalty of [0.5, 0.75, 1, 1.25, 1.5, 2]) {
      for (const point of meanCurve(combination('calibrated', localWeight, underPenalty), gate))
        if (point.llmShare <= maxShare) candidates.push({ gate, localWeight, underPenalty, point });
    }
const show = ({ gate, localWeight, underPenalty, point }: Candidate): string =>
  `  gate ${gate} a ${localWeight} u ${underPenalty} cutoff ${point.threshold}: exact ${(100 * point.exact).toFixed(1)}% under ${(100 * point.under).toFixed(1)}% over ${(100 * point.over).toFixed(1)}% share ${(100 * point.llmShare).toFixed(1)}%`;
const byExact = (a: Candidate, b: Candidate): number => b.point.exact - a.point.exact;
for (const gate of ['confidence', 'value'] as const) {
  const ofGate = candidates.filter((candidate) => candidate.gate === gate);
  console.log(`\ncalibrated, gate ${gate}, LLM share <= ${maxShare}, under <= ${maxUnder}, best exact:`);
  for (const candidate of ofGate
    .filter((c) => c.point.under <= maxUnder)
    .sort(byExact)
    .slice(0, 6))
    console.log(show(candidate));
  console.log(`calibrated, gate ${gate}, LLM share <= ${maxShare}, any under, best exact:`);
  for (const candidate of ofGate.sort(byExact).slice(0, 4)) console.log(show(candidate));
}
const best = candidates.filter((c) => c.point.under <= maxUnder).sort(byExact)[0];
if (best !== undefined)
  console.log(
    `\n${formatCascadeCurve(
      `disagreement: calibrated, gate ${best.gate} (a ${best.localWeight}, u ${best.underPenalty})`,
      meanCurve(combination('calibrated', best.localWeight, best.underPenalty), best.gate),
    )}`,
  );
