/**
 * `npm run sim:classifier -- <labeled.jsonl>... [--accuracy 0.87] [--seed 1] [--port 8190]`: serves a
 * simulated classifier model that knows the gold tiers of the given prompts, for
 * `npm run eval -- <file> --mode cascade --classifier-url http://127.0.0.1:8190/v1 --curve`.
 */
import { parseArgs } from 'node:util';
import { readLabeledExamples } from '../train/labeled-example.js';
import { SIMULATED_CLASSIFIER_MODEL, startSimulatedClassifier } from './simulated-classifier.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    accuracy: { type: 'string', default: '0.87' },
    seed: { type: 'string', default: '1' },
    port: { type: 'string', default: '8190' },
  },
});
if (positionals.length === 0)
  throw new Error('usage: npm run sim:classifier -- <labeled.jsonl>... [--accuracy 0.87]');
const cases = positionals.flatMap((file) => readLabeledExamples(file));
const backend = await startSimulatedClassifier({
  cases,
  accuracy: Number(values.accuracy),
  seed: Number(values.seed),
  port: Number(values.port),
});
console.log(
  `simulated classifier (${cases.length} labeled prompts, accuracy ${values.accuracy}): ${backend.baseUrl} model ${SIMULATED_CLASSIFIER_MODEL}`,
);
const stop = (): void => void backend.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
