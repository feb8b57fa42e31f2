/**
 * Local-mode predictions of dev's gold prompts by models that never saw their source: dev's
 * sources are dealt into `--folds` groups; each group's prompts are classified by a model fitted on
 * every example of the other sources (train-weak with reviewed labels, data/written-train, dev), with
 * the shipped model's temperature, blend and decision policy. Writes one JSON line per prompt:
 * id, source, label, tier, confidence, probabilities. Experiments only; nothing here is shipped.
 *
 *   npx tsx scripts/source-held-out-predictions.ts --out artifacts/source-held-out-dev.jsonl
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { loadLocalModel } from '../src/classify/local-model.js';
import { DEFAULT_MODEL_PATH } from '../src/project-paths.js';
import { DEFAULT_TRAINING_CONFIG } from '../train/model-fitting.js';
import { hashId } from '../train/random.js';
import { fitWithoutSources, readDefaultExamples } from '../train/source-held-out-model.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'artifacts/source-held-out-dev.jsonl' },
    folds: { type: 'string', default: '4' },
    restarts: { type: 'string', default: '4' },
  },
});
const folds = Number(values.folds);
const root = process.cwd();
const examples = readDefaultExamples(root);
const base = loadLocalModel(DEFAULT_MODEL_PATH);
const dev = examples.filter((example) => example.gold && example.file.endsWith('dev.jsonl'));
const sources = [...new Set(dev.map((example) => example.source))].sort((a, b) => hashId(a) - hashId(b));
const lines: string[] = [];
for (let fold = 0; fold < folds; fold += 1) {
  const excluded = new Set(sources.filter((_, index) => index % folds === fold));
  const model = fitWithoutSources(examples, {
    excluded,
    config: { ...DEFAULT_TRAINING_CONFIG, restarts: Number(values.restarts) },
    base,
  });
  const local = createLocalClassifier({ mode: 'local', model });
  for (const example of dev.filter((item) => excluded.has(item.source))) {
    const result = local.classifyLocal(example.request);
    lines.push(
      JSON.stringify({
        id: example.id,
        source: example.source,
        label: example.label,
        tier: result.tier,
        confidence: result.confidence,
        probabilities: result.probabilities,
      }),
    );
  }
  console.log(`fold ${fold + 1}/${folds}: ${[...excluded].join(', ')}`);
}
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${lines.join('\n')}\n`);
console.log(`wrote ${lines.length} predictions to ${values.out}`);
