/**
 * How a reviewed-labels file agrees with the labels in labeled JSONL files: the check behind
 * `data/reviewed-dev-controls.jsonl` (the annotators' blind labels of dev items, against dev's gold).
 *
 *   npx tsx train/review-agreement.ts <reviewed.jsonl> <labeled.jsonl>...
 */
import { TIERS } from '../src/shared/tier.js';
import { readLabeledExamples } from './labeled-example.js';
import { compareReviewedLabels, readReviewedLabels } from './reviewed-labels.js';

const [reviewedFile, ...files] = process.argv.slice(2);
if (reviewedFile === undefined || files.length === 0) {
  console.error('usage: npx tsx train/review-agreement.ts <reviewed.jsonl> <labeled.jsonl>...');
  process.exit(2);
}
const reviewed = readReviewedLabels(reviewedFile);
const examples = files.flatMap((file) => readLabeledExamples(file));
const agreement = compareReviewedLabels(examples, reviewed);
const share = (value: number): string => `${((100 * value) / Math.max(1, agreement.count)).toFixed(1)}%`;
console.log(
  `${agreement.count} of ${reviewed.size} reviewed labels found; agree ${agreement.agree} (${share(agreement.agree)}), reviewed lower ${agreement.lower} (${share(agreement.lower)}), higher ${agreement.higher} (${share(agreement.higher)})`,
);
console.log(`file \\ reviewed ${TIERS.map((tier) => tier.padStart(9)).join('')}`);
TIERS.forEach((tier, index) =>
  console.log(
    `${tier.padEnd(16)}${(agreement.confusion[index] ?? []).map((count) => String(count).padStart(9)).join('')}`,
  ),
);
