import type { CrossValidationReport } from './cross-validation.js';
import { roundMetrics } from './holdout-evaluation.js';
import type { LabeledExample } from './labeled-example.js';
import type { TrainingConfig } from './model-fitting.js';
import type { InputRecord } from './training-inputs.js';

/**
 * The model file's `metadata` (before the held-out metrics are added): how to reproduce it (STYLE.md
 * 17: the command, the seed, each input's path and SHA-256), what it trained on and its
 * cross-validation results.
 */
export function toTrainingMetadata(context: {
  command: string;
  config: TrainingConfig;
  inputs: readonly InputRecord[];
  training: readonly LabeledExample[];
  holdoutCount: number;
  report: CrossValidationReport | undefined;
}): Record<string, unknown> {
  return {
    reproduce: { command: context.command, seed: context.config.seed, inputs: context.inputs },
    trainingExamples: context.training.length,
    reviewedTrainingExamples: context.training.filter((example) => example.reviewed).length,
    goldTrainingExamples: context.training.filter((example) => example.gold).length,
    heldOutExamples: context.holdoutCount,
    config: context.config,
    crossValidation: context.report === undefined ? undefined : toCrossValidationMetadata(context.report),
  };
}

function toCrossValidationMetadata(report: CrossValidationReport): Record<string, unknown> {
  return {
    modes: Object.fromEntries(
      Object.entries(report.pooled).map(([mode, metrics]) => [mode, roundMetrics(metrics)]),
    ),
    /** `local` exact/under/over for every penalty tried: the trade-off to pick another operating point from. */
    frontier: report.candidates.map(({ policy, metrics }) => ({ ...policy, ...roundMetrics(metrics) })),
  };
}
