import type { Figure } from './figure.js';
import { ratio } from './stats.js';

/** One target of the bench and whether this run met it. */
export interface Target {
  key: string;
  label: string;
  /** The compared number: a ratio autotier / Portkey, or autotier's own figure. */
  value: number | null;
  /** e.g. `<= 0.2`, `>= 3`, `< 1`. */
  limit: string;
  met: boolean;
  /**
   * The same comparison for the reference proxies of the run (nginx, the Node floor), where the
   * figure has them: what a proxy doing no gateway work scores against the same limit here.
   */
  references?: { nginx?: number | null; nodeFloor?: number | null };
}

interface Rule {
  key: string;
  label: string;
  field: 'autotier' | 'ratio';
  limit: string;
  test: (value: number) => boolean;
}

/**
 * The bench's targets: latency, throughput, streams, memory and token counts, then abuse; ratios are
 * autotier / Portkey from the same run.
 */
const RULES: readonly Rule[] = [
  {
    key: 'c1.tier_simple.added_p99_ms',
    label: 'added p99 at c=1 (tier:SIMPLE) / Portkey',
    field: 'ratio',
    limit: '<= 0.2',
    test: (value) => value <= 0.2,
  },
  {
    key: 'c1.auto.added_p99_ms',
    label: 'added p99 at c=1 (auto) / Portkey',
    field: 'ratio',
    limit: '<= 0.2',
    test: (value) => value <= 0.2,
  },
  {
    key: 'frontier.w1.p99_20ms_rps',
    label: 'throughput at the 20 ms bound / Portkey',
    field: 'ratio',
    limit: '>= 3',
    test: (value) => value >= 3,
  },
  {
    key: 'stream.added_ttft_p99_ms',
    label: 'added TTFT p99 (ms)',
    field: 'autotier',
    limit: '< 1',
    test: (value) => value < 1,
  },
  {
    key: 'stream.stalled_at_500',
    label: 'stalled or failed streams at 500 concurrent',
    field: 'autotier',
    limit: '= 0',
    test: (value) => value === 0,
  },
  {
    key: 'memory.after_vs_idle_pct',
    label: 'RSS after load vs idle (%)',
    field: 'autotier',
    limit: '<= 10',
    test: (value) => value <= 10,
  },
  {
    key: 'memory.production_idle_mib',
    label: 'production start, RSS idle after 10 s (MiB)',
    field: 'autotier',
    limit: '<= 120',
    test: (value) => value <= 120,
  },
  {
    key: 'memory.production_peak_mib',
    label: 'production start, RSS peak while starting (MiB)',
    field: 'autotier',
    limit: '<= 200',
    test: (value) => value <= 200,
  },
  {
    key: 'memory.workers2_worker_idle_mib',
    label: '--workers 2, RSS of a worker idle after 10 s (MiB)',
    field: 'autotier',
    limit: '<= 120',
    test: (value) => value <= 120,
  },
  {
    key: 'tokens.o200k_base.max_error_pct',
    label: 'o200k count of an eval prompt vs js-tiktoken (%)',
    field: 'autotier',
    limit: '<= 1',
    test: (value) => value <= 1,
  },
  {
    key: 'abuse.worst.request_p90_ms',
    label: 'router time per 1 MB hostile body, p90 (ms)',
    field: 'autotier',
    limit: '< 50',
    test: (value) => value < 50,
  },
  {
    key: 'abuse.worst.health_p99_ms',
    label: '/health p99 beside 1 MB hostile bodies (ms)',
    field: 'autotier',
    limit: '< 10',
    test: (value) => value < 10,
  },
];

export function toTargets(figures: Readonly<Record<string, Figure>>): Target[] {
  return RULES.map((rule) => {
    const figure = figures[rule.key];
    const value = figure?.[rule.field] ?? null;
    // A Portkey throughput of 0 (it failed even the lowest rate) makes any positive autotier rate a win.
    const beatsZero =
      rule.field === 'ratio' &&
      rule.limit.startsWith('>=') &&
      figure?.portkey === 0 &&
      (figure.autotier ?? 0) > 0;
    const target: Target = {
      key: rule.key,
      label: rule.label,
      value,
      limit: rule.limit,
      met: beatsZero || (value !== null && rule.test(value)),
    };
    const references = figure === undefined ? undefined : toReferenceValues(figure, rule.field);
    return references === undefined ? target : Object.assign(target, { references });
  });
}

function toReferenceValues(figure: Figure, field: Rule['field']): Target['references'] {
  const value = (reference: number | null): number | null =>
    field === 'autotier' ? reference : ratio(reference, figure.portkey);
  const references: NonNullable<Target['references']> = {};
  if (figure.nginx !== undefined) references.nginx = value(figure.nginx);
  if (figure.nodeFloor !== undefined) references.nodeFloor = value(figure.nodeFloor);
  return Object.keys(references).length === 0 ? undefined : references;
}
