import { parseArgs } from 'node:util';
import type { ClassifierMode } from '../src/classify/decision.js';

export const EVAL_MODES: readonly ClassifierMode[] = ['heuristic', 'learned', 'local', 'cascade', 'llm'];

/** Classify calls in flight at once. @default 8 */
export const DEFAULT_CONCURRENCY = 8;

/** Misroutes kept in the JSON and HTML reports (the terminal shows the first 10). @default 25 */
export const DEFAULT_WORST = 25;

/** A bad command line: the CLI prints it with the usage and exits 2. */
export class EvalUsageError extends Error {
  override name = 'EvalUsageError';
}

export interface EvalOptions {
  file: string;
  /** One mode, or several with `--compare`. */
  modes: ClassifierMode[];
  /** Routing tables; two or more are compared. */
  tables: string[];
  /** Learned model files; empty = the table's `model_file` or the bundled model. */
  models: string[];
  classifierUrl: string | undefined;
  classifierModel: string | undefined;
  deadlineMs: number | undefined;
  concurrency: number;
  json: string | undefined;
  html: string | undefined;
  /** Floors, fractions 0..1. */
  minAccuracy: number | undefined;
  maxUnderRouting: number | undefined;
  worst: number;
  quiet: boolean;
  strict: boolean;
  /** `--curve`: the cascade's curve instead of a normal report. */
  curve: boolean;
  /** `--thresholds`: the curve's cutoffs; undefined = the gate's default grid. */
  curveThresholds: number[] | undefined;
  /** `--gate`: replaces the table's `classifier.gate` for the curve. */
  gate: 'confidence' | 'value' | undefined;
  help: boolean;
}

export interface EvalDefaults {
  file: string;
  table: string;
}

function toMode(value: string): ClassifierMode {
  const mode = EVAL_MODES.find((candidate) => candidate === value.trim());
  if (mode === undefined)
    throw new EvalUsageError(`unknown mode "${value}"; one of ${EVAL_MODES.join(', ')}`);
  return mode;
}

function toFraction(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !(number >= 0 && number <= 1)) {
    throw new EvalUsageError(`--${name} takes a fraction from 0 to 1 (0.8 for 80%), not "${value}"`);
  }
  return number;
}

function toCount(name: string, value: string | undefined, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum) {
    throw new EvalUsageError(`--${name} takes a whole number of at least ${minimum}, not "${value}"`);
  }
  return number;
}

const OPTIONS = {
  mode: { type: 'string' },
  compare: { type: 'string' },
  table: { type: 'string', multiple: true },
  model: { type: 'string', multiple: true },
  'classifier-url': { type: 'string' },
  'classifier-model': { type: 'string' },
  'deadline-ms': { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'string' },
  html: { type: 'string' },
  'min-accuracy': { type: 'string' },
  'max-under-routing': { type: 'string' },
  worst: { type: 'string' },
  quiet: { type: 'boolean', default: false },
  strict: { type: 'boolean', default: false },
  curve: { type: 'boolean', default: false },
  thresholds: { type: 'string' },
  gate: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function toGate(value: string | undefined): EvalOptions['gate'] {
  if (value === undefined || value === 'confidence' || value === 'value') return value;
  throw new EvalUsageError(`--gate takes confidence or value, not "${value}"`);
}

/** `--thresholds 0.3,0.5,0.7` for `--curve`. */
function toThresholds(value: string): number[] {
  return value.split(',').map((part) => {
    const threshold = toFraction('thresholds', part);
    if (threshold === undefined) throw new EvalUsageError('--thresholds takes fractions from 0 to 1');
    return threshold;
  });
}

function toModes(mode: string | undefined, compare: string | undefined): ClassifierMode[] {
  if (mode !== undefined && compare !== undefined)
    throw new EvalUsageError('use --mode or --compare, not both');
  if (compare === undefined) return [toMode(mode ?? 'local')];
  const modes = [
    ...new Set(
      compare
        .split(',')
        .filter((part) => part.trim() !== '')
        .map(toMode),
    ),
  ];
  if (modes.length === 0) throw new EvalUsageError('--compare takes a comma-separated list of modes');
  return modes;
}

function readArgs(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new EvalUsageError((error as Error).message);
  }
}

/** Reads the command line (without `node` and the script); throws `EvalUsageError`. */
export function parseEvalOptions(argv: readonly string[], defaults: EvalDefaults): EvalOptions {
  const { values, positionals } = readArgs(argv);
  if (positionals.length > 1) throw new EvalUsageError(`one input file, got ${positionals.join(', ')}`);
  return {
    file: positionals[0] ?? defaults.file,
    modes: toModes(values.mode, values.compare),
    tables: values.table ?? [defaults.table],
    models: values.model ?? [],
    classifierUrl: values['classifier-url'],
    classifierModel: values['classifier-model'],
    deadlineMs: toCount('deadline-ms', values['deadline-ms'], 1),
    concurrency: toCount('concurrency', values.concurrency, 1) ?? DEFAULT_CONCURRENCY,
    json: values.json,
    html: values.html,
    minAccuracy: toFraction('min-accuracy', values['min-accuracy']),
    maxUnderRouting: toFraction('max-under-routing', values['max-under-routing']),
    worst: toCount('worst', values.worst, 0) ?? DEFAULT_WORST,
    quiet: values.quiet,
    strict: values.strict,
    curve: values.curve,
    curveThresholds: values.thresholds === undefined ? undefined : toThresholds(values.thresholds),
    gate: toGate(values.gate),
    help: values.help,
  };
}
