import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SOAK_OPTIONS, runSoak } from './run-soak.js';
import { formatReport } from './soak-report.js';

const USAGE = `npm run soak -- [--seconds 20] [--concurrency 16] [--seed 1] [--out artifacts/soak.json]
  CI runs 20 s; a longer local run (e.g. --seconds 600) shows slow leaks the short one cannot.
  Exits 1 when a request exceeds max_attempts, the mean exceeds 1.5 calls per request, a response is
  broken or an internal error, sockets or timers outlive the app, or (runs of 20 s or more) RSS grows
  faster than 5 MB/min over the second half.`;

function readOptions(): { options: typeof DEFAULT_SOAK_OPTIONS; out: string } {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      concurrency: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string', default: 'artifacts/soak.json' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (text: string | undefined, fallback: number): number => {
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`not a positive number: ${text}\n${USAGE}`);
    return value;
  };
  const defaults = DEFAULT_SOAK_OPTIONS;
  return {
    options: {
      ...defaults,
      seconds: number(values.seconds, defaults.seconds),
      concurrency: Math.round(number(values.concurrency, defaults.concurrency)),
      seed: Math.round(number(values.seed, defaults.seed)),
    },
    out: values.out,
  };
}

const { options, out } = readOptions();
const report = await runSoak(options);
console.log(formatReport(report));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`report written to ${out}`);
process.exitCode = report.violations.length === 0 ? 0 : 1;
