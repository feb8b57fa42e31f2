/**
 * Does the local model learn from the LLM stage? `npm run sim:learning`
 *
 * Sources held out of training stream through the real cascade classifier, whose LLM stage calls a
 * real simulated classifier endpoint (gold tier at `--accuracy`, else one tier off). `classifier.learn`'s
 * recorder writes each LLM decision (hashed features, never text) to a file; the model is refitted
 * with those records as extra weak labels; then the next `--test` prompts of the same sources are
 * scored before and after: `local` exact, and the LLM-call share the cascade needs for the accuracy
 * it had before. The base model never saw the held-out sources (fitted here; nothing is shipped).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCascadeClassifier } from '../src/classify/cascade-classifier.js';
import { createCircuitBreaker } from '../src/classify/circuit-breaker.js';
import { createClassificationCache } from '../src/classify/classification-cache.js';
import { toClassifyInput } from '../src/classify/classify-input.js';
import {
  renderPrompt,
  toCascadeCombination,
  toCascadeGate,
} from '../src/classify/create-table-classifier.js';
import { createLlmStage, type LlmStage } from '../src/classify/llm-stage.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { loadLocalModel, type LocalModel } from '../src/classify/local-model.js';
import { createTrafficRecorder } from '../src/classify/traffic-recorder.js';
import { classifierSchema } from '../src/config/routing-table-schema.js';
import { deploymentSchema } from '../src/config/table-part-schemas.js';
import { CLASSIFIER_PROMPT_PATH, DEFAULT_MODEL_PATH } from '../src/project-paths.js';
import { systemClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/logger.js';
import { createSeededRandom } from '../src/shared/seeded-random.js';
import type { Tier } from '../src/shared/tier.js';
import { createFileRecordLog } from '../src/state/file-record-log.js';
import {
  toCascadeCurve,
  toGateAt,
  type CurveItem,
  type CurvePoint,
  type CurveRules,
} from '../eval/cascade-curve.js';
import type { LabeledExample } from '../train/labeled-example.js';
import { DEFAULT_TRAINING_CONFIG } from '../train/model-fitting.js';
import { toShuffledIndices } from '../train/random.js';
import { fitWithoutSources, readDefaultExamples } from '../train/source-held-out-model.js';
import { DEFAULT_TRAFFIC_TRAINING, readTrafficRecords } from '../train/traffic-examples.js';
import { SIMULATED_CLASSIFIER_MODEL, startSimulatedClassifier } from './simulated-classifier.js';

const { values } = parseArgs({
  options: {
    accuracy: { type: 'string', default: '0.87' },
    learn: { type: 'string', default: '2000' },
    test: { type: 'string', default: '1000' },
    sources: {
      type: 'string',
      default:
        'lmarena__arena-hard-auto,jincan333__MAS-TTS,openai__grade-school-math,songys__Chatbot_data,josejg__instruction_following_eval',
    },
    /** The gate's cutoff (`threshold` or `min_value`, by the default table's `gate`). */
    cutoff: { type: 'string' },
    restarts: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    'traffic-weight': { type: 'string', default: String(DEFAULT_TRAFFIC_TRAINING.weight) },
    'traffic-label-share': { type: 'string', default: String(DEFAULT_TRAFFIC_TRAINING.labelShare) },
    out: { type: 'string', default: 'artifacts/learning-simulation' },
  },
});
const defaults = classifierSchema.parse({ mode: 'cascade', deployment: 'classifier' });
const combination = toCascadeCombination(defaults);
const defaultGate = toCascadeGate(defaults);
const cutoff =
  values.cutoff !== undefined
    ? Number(values.cutoff)
    : defaultGate.by === 'value'
      ? defaultGate.minValue
      : defaultGate.threshold;
const rules: CurveRules = { gate: defaults.gate, combination, threshold: defaults.threshold };
const gate = toGateAt(rules, cutoff);
const excluded = new Set(values.sources.split(','));
const learnCount = Number(values.learn);
const testCount = Number(values.test);
const log = (line: string): void => console.log(line);

function toStream(examples: readonly LabeledExample[]): LabeledExample[] {
  const labeled = examples.filter(
    (example) => excluded.has(example.source) && (example.gold || example.reviewed),
  );
  if (labeled.length < learnCount + testCount)
    throw new Error(
      `the held-out sources have ${labeled.length} labeled prompts, fewer than ${learnCount + testCount}`,
    );
  return toShuffledIndices(labeled.length, createSeededRandom(Number(values.seed)))
    .slice(0, learnCount + testCount)
    .map((index) => labeled[index] as LabeledExample);
}

async function mapLimited<T, R>(items: readonly T[], work: (item: T) => Promise<R>, limit = 8): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** Phase 1: the learning stream through the real cascade, recording each LLM decision. */
async function runLearningPhase(
  stream: readonly LabeledExample[],
  setup: { model: LocalModel; llm: LlmStage; path: string },
) {
  const { model, llm, path } = setup;
  rmSync(path, { force: true });
  const recorder = createTrafficRecorder({
    sink: createFileRecordLog({ path, maxRecords: 100_000 }),
    clock: systemClock,
    logger: silentLogger,
    buffer: 10_000,
    flushMs: 200,
  });
  const cascade = createCascadeClassifier({
    mode: 'cascade',
    local: createLocalClassifier({ mode: 'local', model }),
    llm,
    breaker: createCircuitBreaker({ clock: systemClock, failureThreshold: 1000, openMs: 1000 }),
    cache: createClassificationCache({ clock: systemClock, maxEntries: 10_000, ttlMs: 600_000 }),
    threshold: defaults.threshold,
    gate,
    deadlineMs: 10_000,
    combination,
    onLlmDecision: (event) => recorder.record(event, model),
    clock: systemClock,
    now: () => performance.now(),
    logger: silentLogger,
  });
  const decisions = await mapLimited(stream, (example) => cascade.classify(example.request));
  await recorder.close();
  const exact = decisions.filter((decision, index) => decision.tier === stream[index]?.label).length;
  const asked = decisions.filter((decision) => decision.llmCalled).length;
  log(
    `learning phase: ${stream.length} requests through cascade (gate ${defaults.gate} at ${cutoff}): exact ${pct(exact / stream.length)}, LLM share ${pct(asked / stream.length)}; ${recorder.stats().written} records written`,
  );
}

const pct = (share: number): string => `${(100 * share).toFixed(1)}%`;

/** Curve items of the test prompts under `model`, with the endpoint's verdicts (asked once per prompt). */
function toItems(
  test: readonly LabeledExample[],
  model: LocalModel,
  verdicts: readonly (Tier | undefined)[],
): CurveItem[] {
  const local = createLocalClassifier({ mode: 'local', model });
  return test.map((example, index) => {
    const result = local.classifyLocal(example.request);
    return { gold: example.label, local: result, verdict: verdicts[index] };
  });
}

/** Cutoffs 0, 0.005 ... 1 of the gate, for the share at equal accuracy. */
const GRID = Array.from({ length: 201 }, (_, step) => step / 200);

/** The smallest LLM share at which the curve reaches `exact`, or undefined. */
function shareFor(curve: readonly CurvePoint[], exact: number): CurvePoint | undefined {
  return curve
    .filter((point) => point.exact >= exact - 1e-9)
    .reduce<CurvePoint | undefined>(
      (best, point) => (best === undefined || point.llmShare < best.llmShare ? point : best),
      undefined,
    );
}

async function main(): Promise<void> {
  const examples = readDefaultExamples(process.cwd());
  const stream = toStream(examples);
  const learnStream = stream.slice(0, learnCount);
  const test = stream.slice(learnCount);
  log(`held-out sources: ${[...excluded].join(', ')}; ${learnCount} learning + ${testCount} test prompts`);
  const shipped = loadLocalModel(DEFAULT_MODEL_PATH);
  const config = { ...DEFAULT_TRAINING_CONFIG, restarts: Number(values.restarts) };
  const before = fitWithoutSources(examples, { excluded, config, base: shipped });
  const backend = await startSimulatedClassifier({
    cases: stream,
    accuracy: Number(values.accuracy),
    seed: Number(values.seed),
  });
  try {
    const llm = createLlmStage({
      deployment: deploymentSchema.parse({
        id: 'classifier',
        model: SIMULATED_CLASSIFIER_MODEL,
        base_url: backend.baseUrl,
        context_window: 32_768,
      }),
      systemPrompt: renderPrompt(readFileSync(CLASSIFIER_PROMPT_PATH, 'utf8'), {}),
      maxTokens: defaults.max_tokens,
      apiKey: undefined,
    });
    mkdirSync(values.out, { recursive: true });
    const recordsPath = join(values.out, 'traffic.jsonl');
    await runLearningPhase(learnStream, { model: before, llm, path: recordsPath });
    const records = readTrafficRecords(recordsPath);
    const trafficTraining = {
      weight: Number(values['traffic-weight']),
      labelShare: Number(values['traffic-label-share']),
    };
    const after = fitWithoutSources(examples, {
      excluded,
      config,
      base: shipped,
      traffic: records,
      trafficTraining,
    });
    log(
      `refitted with ${records.length} traffic records as weak labels (weight ${trafficTraining.weight}, label share ${trafficTraining.labelShare})`,
    );
    const outcomes = await mapLimited(test, (example) =>
      llm.ask(toClassifyInput(example.request), new AbortController().signal),
    );
    const verdicts = outcomes.map((outcome) => (outcome.ok ? outcome.verdict.complexity : undefined));
    report(toItems(test, before, verdicts), toItems(test, after, verdicts));
  } finally {
    await backend.close();
  }
}

function report(beforeItems: CurveItem[], afterItems: CurveItem[]): void {
  const beforeCurve = toCascadeCurve(beforeItems, [...GRID, cutoff], rules);
  const afterCurve = toCascadeCurve(afterItems, [...GRID, cutoff], rules);
  const localOnly = (items: CurveItem[]) =>
    toCascadeCurve(items, [0], { ...rules, gate: 'confidence' })[0] as CurvePoint;
  const [localBefore, localAfter] = [localOnly(beforeItems), localOnly(afterItems)];
  log(`test phase (${beforeItems.length} next prompts of the held-out sources):`);
  log(
    `  local   before: exact ${pct(localBefore.exact)} under ${pct(localBefore.under)} over ${pct(localBefore.over)}`,
  );
  log(
    `  local   after:  exact ${pct(localAfter.exact)} under ${pct(localAfter.under)} over ${pct(localAfter.over)}  (${((localAfter.exact - localBefore.exact) * 100).toFixed(1)} points)`,
  );
  const atDefault = (curve: CurvePoint[]) =>
    curve.find((point) => Math.abs(point.threshold - cutoff) < 1e-9) as CurvePoint;
  const [cascadeBefore, cascadeAfter] = [atDefault(beforeCurve), atDefault(afterCurve)];
  log(
    `  cascade before, ${defaults.gate} ${cutoff}: exact ${pct(cascadeBefore.exact)} under ${pct(cascadeBefore.under)} LLM share ${pct(cascadeBefore.llmShare)}`,
  );
  log(
    `  cascade after,  ${defaults.gate} ${cutoff}: exact ${pct(cascadeAfter.exact)} under ${pct(cascadeAfter.under)} LLM share ${pct(cascadeAfter.llmShare)}`,
  );
  const needed = shareFor(afterCurve, cascadeBefore.exact);
  if (needed === undefined) log('  after never reaches the cascade accuracy of before');
  else
    log(
      `  equal accuracy: after reaches ${pct(cascadeBefore.exact)} at ${defaults.gate} ${needed.threshold} with LLM share ${pct(needed.llmShare)} (exact ${pct(needed.exact)}, under ${pct(needed.under)}): ${pct(1 - needed.llmShare / Math.max(1e-9, cascadeBefore.llmShare))} fewer LLM calls`,
    );
}

await main();
