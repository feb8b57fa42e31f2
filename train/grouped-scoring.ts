import type { Tier } from '../src/shared/tier.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import { chooseTier } from '../src/classify/choose-tier.js';
import type { TierLogits } from '../src/classify/learned-classifier.js';
import type { DecisionPolicy } from '../src/classify/local-model.js';
import type { LocalMode } from '../src/classify/local-classifier.js';
import { toBlendInputs, type TierBlend } from '../src/classify/tier-blend.js';
import { toTierProbabilities } from '../src/classify/tier-probabilities.js';
import { fitBlend } from './blend-fitting.js';
import { fitTemperature, tuneDecision, type DecisionTuning } from './calibration.js';
import type { PreparedData } from './model-fitting.js';
import { LOCAL_MODES, toModeProbabilities } from './mode-evaluation.js';

/** What `npm run train` fits on out-of-fold predictions: temperature, blend and decision policy. */
export interface Calibration {
  temperature: number;
  blend: TierBlend | undefined;
  decision: DecisionPolicy;
}

export interface CalibrationOptions {
  tuning: DecisionTuning;
  blend: boolean;
  heuristicPolicy: DecisionPolicy;
}

/** Fits a calibration on `indices`' logits (gold examples), as `crossValidate` does on its pooled folds. */
export function fitCalibration(
  data: PreparedData,
  sample: { indices: readonly number[]; logits: ReadonlyMap<number, TierLogits> },
  options: CalibrationOptions,
): Calibration {
  const indices = sample.indices.filter((index) => sample.logits.has(index));
  const logitsOf = (index: number): TierLogits => sample.logits.get(index) ?? [0, 0, 0, 0];
  const labels: Tier[] = indices.map((index) => data.encoded[index]?.example.label ?? 'MODERATE');
  const temperature = fitTemperature(indices.map(logitsOf), labels);
  const learned = indices.map((index) => toTierProbabilities(logitsOf(index), temperature));
  const blend = options.blend
    ? fitBlend(
        indices.map((index, position) =>
          toBlendInputs(
            learned[position] ?? UNIFORM,
            data.encoded[index]?.heuristic.probabilities ?? UNIFORM,
          ),
        ),
        indices.map((index) => Array.from(data.targets.subarray(index * 4, index * 4 + 4))),
      )
    : undefined;
  const local = indices.map((index, position) => {
    const encoded = data.encoded[index];
    return encoded === undefined
      ? UNIFORM
      : toModeProbabilities(encoded, learned[position] ?? UNIFORM, blend).local;
  });
  const tuned = tuneDecision(
    local,
    indices.map((index) => {
      const example = data.encoded[index]?.example;
      return {
        label: example?.label ?? 'MODERATE',
        acceptable: example?.acceptable ?? [],
        source: example?.source ?? '',
      };
    }),
    options.tuning,
  );
  return { temperature, blend, decision: tuned.policy };
}

/** One scored example's tier in every local mode, and `local` mode's probabilities. */
export interface GroupedPrediction {
  index: number;
  predicted: Record<LocalMode, Tier>;
  local: TierProbabilities;
}

/** Predictions of `indices` under `calibration` (the heuristic mode keeps its own policy). */
export function predictModes(
  data: PreparedData,
  sample: { indices: readonly number[]; logits: ReadonlyMap<number, TierLogits> },
  settings: { calibration: Calibration; heuristicPolicy: DecisionPolicy },
): GroupedPrediction[] {
  const { calibration } = settings;
  return sample.indices.flatMap((index) => {
    const encoded = data.encoded[index];
    const logits = sample.logits.get(index);
    if (encoded === undefined || logits === undefined) return [];
    const learned = toTierProbabilities(logits, calibration.temperature);
    const probabilities = toModeProbabilities(encoded, learned, calibration.blend);
    const predicted = Object.fromEntries(
      LOCAL_MODES.map((mode) => [
        mode,
        chooseTier(
          probabilities[mode],
          mode === 'heuristic' ? settings.heuristicPolicy : calibration.decision,
        ),
      ]),
    ) as Record<LocalMode, Tier>;
    return [{ index, predicted, local: probabilities.local }];
  });
}

const UNIFORM: TierProbabilities = { SIMPLE: 0.25, MODERATE: 0.25, COMPLEX: 0.25, EXPERT: 0.25 };
