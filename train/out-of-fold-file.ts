import { writeFileSync } from 'node:fs';
import type { CrossValidationReport } from './cross-validation.js';

/** Writes every out-of-fold prediction (id, label, probabilities, signals) as JSONL; returns the count. */
export function writeOutOfFold(file: string, report: CrossValidationReport): number {
  const lines = report.items.map(({ encoded, probabilities }) =>
    JSON.stringify({
      id: encoded.example.id,
      label: encoded.example.label,
      acceptable: encoded.example.acceptable,
      source: encoded.example.source,
      heuristic: encoded.heuristic.probabilities,
      learned: probabilities.learned,
      local: probabilities.local,
      signals: encoded.heuristic.signals,
      floor: encoded.heuristic.floor,
      ceiling: encoded.heuristic.ceiling,
      prompt: encoded.input.text.slice(0, 300),
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines.length;
}
