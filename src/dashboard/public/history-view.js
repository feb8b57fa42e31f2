// @ts-check
/**
 * The dashboard's "last hour" charts, drawn from the summary's `history`: requests by how
 * they ended, tier mix, error rates, latency, refused requests by kind, and per deployment TTFT and
 * error rate. Each chart replaces its container's content on every poll.
 */
import { lines, stackedBars } from './history-charts.js';

/** @typedef {import('./history-charts.js').Series} Series */

/**
 * @typedef {object} HistoryView
 * @property {number} bucketMs
 * @property {number} start
 * @property {{ ok: number[], error: number[], rejected: number[], cancelled: number[] }} requests
 * @property {Record<string, number[]>} rejected
 * @property {Record<string, number[]>} tiers
 * @property {{ p50: (number | null)[], p95: (number | null)[] }} latencyMs
 * @property {{ p50: (number | null)[], p95: (number | null)[] }} ttftMs
 * @property {Record<string, { attempts: number[], failures: number[], ttftMs: { p50: (number | null)[], p95: (number | null)[] } }>} deployments
 */

const TIER_COLOURS = /** @type {Record<string, string>} */ ({
  SIMPLE: 'var(--tier-simple)',
  MODERATE: 'var(--tier-moderate)',
  COMPLEX: 'var(--tier-complex)',
  EXPERT: 'var(--tier-expert)',
  AUTOCOMPLETE: 'var(--tier-vision)',
});
const TIER_ORDER = ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT', 'AUTOCOMPLETE'];
const REJECTION_LABELS = /** @type {Record<string, string>} */ ({
  invalid: 'invalid request (4xx)',
  auth: 'key refused (401/403)',
  limit: 'limit reached (429)',
  shutting_down: 'shutting down (503)',
  other: 'other',
});
const REJECTION_COLOURS = /** @type {Record<string, string>} */ ({
  invalid: '#f59e0b',
  auth: '#8b5cf6',
  limit: '#ec4899',
  shutting_down: '#64748b',
  other: '#94a3b8',
});
/** Deployment colours, in turn. */
const PALETTE = ['#4f46e5', '#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#8b5cf6', '#14b8a6', '#e11d48'];

/** @param {number} value */
const round = (value) =>
  Math.abs(value) >= 10 || Number.isInteger(value) ? Math.round(value) : Number(value.toFixed(1));
/** @param {number} value */
const perMinute = (value) => `${round(value)}`;
/** @param {number} value */
const percent = (value) => `${round(value)}%`;
/** @param {number} ms */
const duration = (ms) => (ms >= 1000 ? `${round(ms / 1000)} s` : `${round(ms)} ms`);

/**
 * `part / whole` per bucket in percent, null where `whole` is 0.
 * @param {number[]} part @param {number[]} whole
 */
function rate(part, whole) {
  return whole.map((total, index) => (total === 0 ? null : (100 * (part[index] ?? 0)) / total));
}

/** @param {HistoryView} history @param {string} id */
const hasTtft = (history, id) => history.deployments[id]?.ttftMs.p50.some((value) => value !== null) ?? false;

/** @param {number[]} left @param {number[]} right */
const add = (left, right) => left.map((value, index) => value + (right[index] ?? 0));

/**
 * @param {HTMLElement} container
 * @param {HistoryView} history
 */
export function renderHistory(container, history) {
  const frame = { start: history.start, bucketMs: history.bucketMs };
  const unit = history.bucketMs === 60_000 ? 'req/min' : `req per ${Math.round(history.bucketMs / 1000)} s`;
  const { requests } = history;
  const all = add(add(requests.ok, requests.error), add(requests.rejected, requests.cancelled));
  const routed = add(requests.ok, requests.error);
  const tiers = Object.keys(history.tiers).sort(
    (a, b) => ((TIER_ORDER.indexOf(a) + 99) % 99) - ((TIER_ORDER.indexOf(b) + 99) % 99) || a.localeCompare(b),
  );
  const deployments = Object.keys(history.deployments);
  const colourOf = (/** @type {string} */ id) =>
    PALETTE[deployments.indexOf(id) % PALETTE.length] ?? PALETTE[0] ?? '#4f46e5';
  /** @type {Record<string, HTMLElement>} */
  const charts = {
    'chart-requests': stackedBars({
      ...frame,
      testId: 'chart-requests',
      yTitle: unit,
      format: perMinute,
      integer: true,
      series: [
        { label: 'ok', color: 'var(--ok)', values: requests.ok },
        { label: 'error', color: 'var(--bad)', values: requests.error },
        { label: 'rejected', color: 'var(--warn)', values: requests.rejected },
        { label: 'client went away', color: 'var(--tier-none)', values: requests.cancelled },
      ],
    }),
    'chart-tiers': stackedBars({
      ...frame,
      testId: 'chart-tiers',
      yTitle: unit,
      format: perMinute,
      integer: true,
      empty: 'No routed requests in the last hour',
      series: tiers.map((tier, index) => ({
        label: tier,
        color: TIER_COLOURS[tier] ?? PALETTE[index % PALETTE.length] ?? '#94a3b8',
        values: history.tiers[tier] ?? [],
      })),
    }),
    'chart-error-rate': lines({
      ...frame,
      testId: 'chart-error-rate',
      yTitle: '%',
      format: percent,
      minMax: 10,
      empty: 'No errors or rejections in the last hour',
      series: [
        { label: 'upstream errors, % of routed', color: 'var(--bad)', values: rate(requests.error, routed) },
        { label: 'rejected, % of all', color: 'var(--warn)', values: rate(requests.rejected, all) },
      ],
    }),
    'chart-latency': lines({
      ...frame,
      testId: 'chart-latency',
      yTitle: 'ms',
      format: duration,
      empty: 'No routed requests in the last hour',
      series: [
        { label: 'total p50', color: '#4f46e5', values: history.latencyMs.p50 },
        { label: 'total p95', color: '#ef4444', values: history.latencyMs.p95 },
        { label: 'first token p50', color: '#4f46e5', values: history.ttftMs.p50, dashed: true },
        { label: 'first token p95', color: '#ef4444', values: history.ttftMs.p95, dashed: true },
      ],
    }),
    'chart-rejected': stackedBars({
      ...frame,
      testId: 'chart-rejected',
      yTitle: unit,
      format: perMinute,
      integer: true,
      empty: 'No rejected requests in the last hour',
      series: Object.keys(REJECTION_LABELS).map((kind) => ({
        label: REJECTION_LABELS[kind] ?? kind,
        color: REJECTION_COLOURS[kind] ?? '#94a3b8',
        values: history.rejected[kind] ?? [],
      })),
    }),
    'chart-deployment-ttft': lines({
      ...frame,
      testId: 'chart-deployment-ttft',
      yTitle: 'ms',
      format: duration,
      empty: 'No answered calls in the last hour',
      series: deployments
        .filter((id) => hasTtft(history, id))
        .flatMap((id) => [
          { label: `${id} p50`, color: colourOf(id), values: history.deployments[id]?.ttftMs.p50 ?? [] },
          {
            label: `${id} p95`,
            color: colourOf(id),
            values: history.deployments[id]?.ttftMs.p95 ?? [],
            dashed: true,
          },
        ]),
    }),
    'chart-deployment-errors': lines({
      ...frame,
      testId: 'chart-deployment-errors',
      yTitle: '% of calls',
      format: percent,
      minMax: 10,
      empty: 'No upstream calls in the last hour',
      series: deployments.map((id) => ({
        label: id,
        color: colourOf(id),
        values: rate(history.deployments[id]?.failures ?? [], history.deployments[id]?.attempts ?? []),
      })),
    }),
  };
  for (const [id, chart] of Object.entries(charts)) container.querySelector(`#${id}`)?.replaceChildren(chart);
}
