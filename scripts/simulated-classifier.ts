import { toClassifyInput } from '../src/classify/classify-input.js';
import type { ClassifyRequest } from '../src/classify/decision.js';
import { createClassifierResponder } from '../sim/classifier-responder.js';
import { createSimulatedBackend } from '../sim/index.js';
import type { SimBackend } from '../sim/index.js';
import type { Tier } from '../src/shared/tier.js';

export interface SimulatedClassifierOptions {
  /** Labeled prompts the classifier knows the gold tier of. */
  cases: readonly { request: ClassifyRequest; label: Tier }[];
  /** Share answered with the gold tier; else one tier off. @default 0.87 */
  accuracy: number;
  seed: number;
  /** @default 0 (an ephemeral port) */
  port?: number;
}

/** Served model name of the simulated classifier: the design's, which `npm run eval` asks for by default. */
export const SIMULATED_CLASSIFIER_MODEL = 'Qwen/Qwen3-8B';

/**
 * A simulated classifier endpoint (Qwen3-8B's stand-in): an OpenAI-compatible server that
 * answers each classifier request about a labeled prompt with the gold tier at `accuracy`, else one
 * tier up or down. Prompts are matched by the text the classifier stage sends (the classify window).
 */
export async function startSimulatedClassifier(options: SimulatedClassifierOptions): Promise<SimBackend> {
  const labels = new Map<string, Tier>();
  for (const { request, label } of options.cases) labels.set(toClassifyInput(request).text, label);
  return createSimulatedBackend({
    id: 'classifier-sim',
    models: [SIMULATED_CLASSIFIER_MODEL],
    port: options.port ?? 0,
    responder: createClassifierResponder({
      labelOf: (text) => labels.get(text),
      accuracy: options.accuracy,
      seed: options.seed,
    }),
  });
}
