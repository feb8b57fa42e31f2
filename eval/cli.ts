/**
 * `npm run eval -- [labeled.jsonl] [options]`: scores the classifier on a labeled file. See eval/README.md.
 * Exit codes: 0 pass, 1 a floor (--min-accuracy, --max-under-routing, --strict) failed, 2 bad usage or input.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { systemClock } from '../src/shared/clock.js';
import { CLASSIFIER_PROMPT_PATH, DEFAULT_MODEL_PATH, PROJECT_ROOT } from '../src/project-paths.js';
import { toCurveReport, type CurveReport } from './cascade-curve-report.js';
import { checkFloors } from './check-floors.js';
import { createVariantRunner } from './create-variant-runner.js';
import { EVAL_USAGE } from './eval-usage.js';
import { EvalUsageError, parseEvalOptions, type EvalOptions } from './eval-options.js';
import { toReportDocument, type EvalReport } from './eval-report.js';
import { toEvalVariants } from './eval-variants.js';
import { formatComparison } from './format-comparison.js';
import { formatReport } from './format-report.js';
import { toHtmlReport } from './html-report.js';
import { parseEvalFile } from './parse-eval-file.js';
import { createProgressReporter } from './progress-bar.js';

/** Paths inside the working directory read relative to it, as a user would type them; others stay absolute. */
function toShownPath(path: string): string {
  const shown = relative(process.cwd(), resolve(path));
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? resolve(path) : shown;
}

function writeOutput(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

async function runAll(options: EvalOptions): Promise<EvalReport[]> {
  const file = toShownPath(options.file);
  const input = parseEvalFile(readFileSync(options.file, 'utf8'));
  const variants = toEvalVariants({
    modes: options.modes,
    tables: options.tables.map(toShownPath),
    models: options.models.map(toShownPath),
  });
  const runner = createVariantRunner({
    file,
    input,
    settings: options,
    promptTemplate: readFileSync(CLASSIFIER_PROMPT_PATH, 'utf8'),
    defaultModelPath: toShownPath(DEFAULT_MODEL_PATH),
    readSecret: (name) => process.env[name],
    createProgress: (variant) =>
      createProgressReporter({
        total: input.cases.length,
        label: variant.label,
        write: (text) => (options.quiet ? undefined : process.stderr.write(text)),
        isTty: process.stderr.isTTY,
        now: () => performance.now(),
      }),
    clock: systemClock,
    now: () => performance.now(),
  });
  const reports: EvalReport[] = [];
  for (const variant of variants) reports.push(await runner.run(variant));
  return reports;
}

/** `--curve`: the cascade's threshold curve per table and model, instead of the report. */
async function runCurves(options: EvalOptions): Promise<number> {
  const input = parseEvalFile(readFileSync(options.file, 'utf8'));
  const variants = toEvalVariants({
    modes: ['cascade'],
    tables: options.tables.map(toShownPath),
    models: options.models.map(toShownPath),
  });
  const reports: CurveReport[] = [];
  for (const variant of variants) {
    const { report, text } = await toCurveReport(variant, {
      input,
      settings: options,
      promptTemplate: readFileSync(CLASSIFIER_PROMPT_PATH, 'utf8'),
      defaultModelPath: toShownPath(DEFAULT_MODEL_PATH),
      readSecret: (name) => process.env[name],
      clock: systemClock,
    });
    console.log(text);
    reports.push(report);
  }
  if (options.json !== undefined)
    writeOutput(options.json, `${JSON.stringify({ curves: reports }, null, 2)}\n`);
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseEvalOptions(argv, {
    file: toShownPath(join(PROJECT_ROOT, 'eval/prompts.jsonl')),
    table: toShownPath(join(PROJECT_ROOT, 'routing-tables/default.yaml')),
  });
  if (options.help) {
    console.log(EVAL_USAGE);
    return 0;
  }
  if (options.curve) return runCurves(options);
  const reports = await runAll(options);
  console.log(
    reports.length === 1 && reports[0] !== undefined ? formatReport(reports[0]) : formatComparison(reports),
  );
  if (options.json !== undefined)
    writeOutput(options.json, `${JSON.stringify(toReportDocument(reports), null, 2)}\n`);
  if (options.html !== undefined) writeOutput(options.html, toHtmlReport(reports));
  const failures = reports.flatMap((report) => checkFloors(report, options));
  for (const failure of failures) console.error(`FAIL ${failure}`);
  return failures.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof EvalUsageError ? `\n\n${EVAL_USAGE}` : '';
    console.error(`eval: ${error instanceof Error ? error.message : String(error)}${usage}`);
    process.exitCode = 2;
  },
);
