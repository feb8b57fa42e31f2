import type { EvalReport } from './eval-report.js';
import { formatPercent } from './text-table.js';

export interface Floors {
  /** Lowest exact accuracy that passes, 0..1. */
  minAccuracy: number | undefined;
  /** Highest under-routing rate that passes, 0..1. */
  maxUnderRouting: number | undefined;
  /** Malformed input lines fail the run too. */
  strict: boolean;
}

type FloorInput = Pick<EvalReport, 'label' | 'accuracy' | 'under_routing_rate' | 'malformed'>;

/** Every floor one run misses, as a sentence; empty when it passes. */
export function checkFloors(report: FloorInput, floors: Floors): string[] {
  const failures: string[] = [];
  const { label } = report;
  if (floors.minAccuracy !== undefined && report.accuracy < floors.minAccuracy) {
    failures.push(
      `${label}: accuracy ${formatPercent(report.accuracy, 2)} is below --min-accuracy ${formatPercent(floors.minAccuracy, 2)}`,
    );
  }
  if (floors.maxUnderRouting !== undefined && report.under_routing_rate > floors.maxUnderRouting) {
    failures.push(
      `${label}: under-routing ${formatPercent(report.under_routing_rate, 2)} is above --max-under-routing ${formatPercent(floors.maxUnderRouting, 2)}`,
    );
  }
  if (floors.strict && report.malformed.length > 0) {
    failures.push(`${label}: ${report.malformed.length} malformed line(s) and --strict`);
  }
  return failures;
}
