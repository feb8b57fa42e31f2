/**
 * Development report for the heuristic signals: how often each signal fires per gold tier, and the
 * heuristic-only metrics. Usage: `npm run train:signals -- <labeled.jsonl>...`
 */
import { TIERS, toTierRank } from '../src/shared/tier.js';
import { toClassifyInput } from '../src/classify/classify-input.js';
import { SIGNAL_NAMES, scoreHeuristics } from '../src/classify/heuristics.js';
import { toTopTier } from '../src/classify/tier-probabilities.js';
import { readLabeledExamples } from './labeled-example.js';
import { formatTierMetrics, toSourceAccuracy, toTierMetrics } from './tier-metrics.js';

const files = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const show = process.argv.find((argument) => argument.startsWith('--show='))?.slice('--show='.length);
const examples = files.flatMap((file) => readLabeledExamples(file));
const counts = new Map(SIGNAL_NAMES.map((name) => [name, [0, 0, 0, 0]]));
const predictions = examples.map((example) => {
  const result = scoreHeuristics(toClassifyInput(example.request));
  for (const name of result.signals) {
    const row = counts.get(name);
    if (row !== undefined) row[toTierRank(example.label)] = (row[toTierRank(example.label)] ?? 0) + 1;
  }
  if (
    show !== undefined &&
    (result.signals.includes(show) || (show === 'miss' && toTopTier(result.probabilities) !== example.label))
  ) {
    console.log(
      `${example.label} <- ${toTopTier(result.probabilities)} [${result.signals.join(' ')}] ${JSON.stringify(toClassifyInput(example.request).text.slice(0, 160))}`,
    );
  }
  return {
    predicted: toTopTier(result.probabilities),
    label: example.label,
    acceptable: example.acceptable,
    source: example.source,
  };
});
console.log(`signal                  ${TIERS.map((tier) => tier.slice(0, 8).padStart(9)).join('')}`);
for (const [name, row] of counts)
  console.log(`${name.padEnd(24)}${row.map((count) => String(count).padStart(9)).join('')}`);
console.log(formatTierMetrics(toTierMetrics(predictions)));
for (const entry of toSourceAccuracy(predictions))
  console.log(
    `  ${entry.source.padEnd(45)} ${(100 * entry.exact).toFixed(0).padStart(4)}% of ${entry.count}`,
  );
