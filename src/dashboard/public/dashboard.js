// @ts-check
/**
 * The autotier operator dashboard: polls GET /dashboard/api/summary every 2 s and
 * explains prompts with POST /v1/route. Vanilla JS, no dependencies, works offline.
 * Every value from the server is written with textContent, never as HTML.
 */

import { renderHistory } from './history-view.js';

/**
 * @typedef {object} RequestSummary
 * @property {string} requestId
 * @property {string | undefined} [keyName]
 * @property {string} endpoint
 * @property {'routed' | 'rejected'} outcome Rejected: answered by autotier before or instead of routing.
 * @property {string} method
 * @property {string} path
 * @property {boolean} stream
 * @property {string | undefined} [tier]
 * @property {string | undefined} [complexity]
 * @property {string | undefined} [cause]
 * @property {string | undefined} [cacheStage] For cause `cache`: the stage that made the cached decision.
 * @property {number | undefined} [confidence]
 * @property {string[]} signals
 * @property {boolean} llmCalled
 * @property {string[]} rules
 * @property {string | undefined} [deployment]
 * @property {number} status
 * @property {string | undefined} [errorCode]
 * @property {string | undefined} [errorMessage]
 * @property {number} attempts
 * @property {number} fallbacks
 * @property {number | undefined} [ttftMs]
 * @property {number} durationMs
 * @property {number} endedAt Epoch ms.
 */

/**
 * @typedef {object} Activity
 * @property {RequestSummary[]} requests Routed and rejected, newest first.
 * @property {Record<string, Record<string, number>>} recentErrors
 * @property {Record<string, number>} byTier Routed requests only.
 * @property {Record<string, number>} byCause Routed requests only.
 * @property {Record<string, number>} byRejectedCode
 * @property {{ calls: number, classified: number, p50Ms?: number, p95Ms?: number }} llm
 * @property {number} fallbacksPerMinute
 * @property {Record<string, number>} continuations Broken streams in the window, by outcome.
 * @property {number} windowMs
 */

/**
 * @typedef {object} DeploymentState
 * @property {string} id
 * @property {string} model
 * @property {'healthy' | 'cooling_down' | 'half_open'} health
 * @property {{ until: string, reason: string, consecutive_failures: number } | null} cooldown
 * @property {number} in_flight
 * @property {number | undefined} [max_concurrency]
 * @property {number | null} ttft_ewma_ms
 * @property {Record<string, number>} recent_errors
 */

/**
 * @typedef {object} State
 * @property {{ source: string, version: string | number, loaded_at: string, warnings: string[] }} routing_table
 * @property {{ mode: string, deployment?: string | null }} classifier
 * @property {{ kind: string, degraded: boolean, errors: number }} shared_state
 * @property {DeploymentState[]} deployments
 */

/** @typedef {{ p50: (number | null)[], p95: (number | null)[] }} PercentileSeries */

/**
 * @typedef {object} DeploymentHistory
 * @property {number[]} attempts
 * @property {number[]} failures
 * @property {PercentileSeries} ttftMs
 * @property {{ attempts: number, failures: number, ttftP50Ms: number | null, ttftP95Ms: number | null }} total
 */

/**
 * The last hour in buckets, oldest first (index i starts at start + i * bucketMs); per process.
 * @typedef {object} History
 * @property {'process'} scope
 * @property {number} bucketMs
 * @property {number} buckets
 * @property {number} start
 * @property {{ ok: number[], error: number[], rejected: number[], cancelled: number[] }} requests
 * @property {Record<string, number[]>} rejected By kind: invalid, auth, limit, shutting_down, other.
 * @property {Record<string, number[]>} tiers
 * @property {Record<string, number[]>} endpoints
 * @property {number[]} fallbacks
 * @property {PercentileSeries} latencyMs
 * @property {PercentileSeries} ttftMs
 * @property {Record<string, DeploymentHistory>} deployments
 * @property {{ requests: number, errors: number, rejected: number, latencyP50Ms: number | null, latencyP95Ms: number | null }} totals
 */

/** @typedef {{ activity: Activity, history?: History, state: State, now?: number | string }} Summary */

/** @typedef {{ rule: string, name?: string, from: string, to: string, reason: string }} TierChange */

/**
 * @typedef {object} Explanation
 * @property {string | null} complexity
 * @property {string} tier
 * @property {string} cause
 * @property {number | null} confidence
 * @property {string[]} signals
 * @property {Record<string, number>} stage_latency_ms
 * @property {string | null} reason
 * @property {number} prompt_tokens
 * @property {number} max_tokens
 * @property {TierChange[]} rules
 * @property {string[]} group
 * @property {string[]} fallback
 * @property {string} strategy
 * @property {Record<string, number>} timeouts
 */

/** Summary poll period, in milliseconds. */
const POLL_MS = 2000;
/** Most decision rows shown (the server keeps 200). */
const MAX_ROWS = 50;
const KEY_STORAGE = 'autotier.dashboard.key';
const TIERS = ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'];
const CAUSES = ['heuristic', 'learned', 'llm', 'cache', 'rule', 'override', 'fallback'];
const HEALTH_LABELS = { healthy: 'healthy', cooling_down: 'cooling down', half_open: 'half open' };

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`missing #${id}`);
  return element;
}

/**
 * Builds an element; children are text or nodes (never HTML).
 * @param {string} tag
 * @param {Record<string, string | undefined>} [attributes]
 * @param {(Node | string | null | undefined)[]} [children]
 * @returns {HTMLElement}
 */
function h(tag, attributes = {}, children = []) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

/** @param {unknown} value @returns {value is number} */
const isNumber = (value) => typeof value === 'number' && Number.isFinite(value);

/** @param {number | null | undefined} ms */
function formatMs(ms) {
  if (!isNumber(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/** @param {number} share 0..1 */
const formatPercent = (share) => `${Math.round(share * 100)}%`;

/** @param {number} epochMs */
const formatTime = (epochMs) =>
  new Date(epochMs).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  });

/** @param {number} seconds */
function formatCountdown(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return whole >= 60 ? `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/** @param {string | undefined} tier */
const tierBadge = (tier) =>
  h('span', { class: `badge tier tier-${(tier ?? 'none').toLowerCase()}`, 'data-testid': 'tier' }, [
    tier ?? '–',
  ]);

/**
 * The cause, and for a cached decision the stage that made it: `cache (llm)`.
 * @param {string | undefined} cause
 * @param {string | undefined} [cacheStage]
 */
const causeBadge = (cause, cacheStage) =>
  h(
    'span',
    {
      class: `badge cause cause-${cause ?? 'none'}`,
      'data-testid': 'cause',
      title: cacheStage === undefined ? undefined : `cached decision, first made by the ${cacheStage} stage`,
    },
    [cacheStage === undefined ? (cause ?? '–') : `${cause ?? '–'} (${cacheStage})`],
  );

/**
 * A rule as the request summary labels it, `kind:from->to` (kind may be `rule[name]`; neither holds
 * `:` or `->`), split up; `lift` when it raised one tier to a higher one.
 * @param {string} label
 */
function parseRuleLabel(label) {
  const colon = label.indexOf(':');
  const kind = colon < 0 ? label : label.slice(0, colon);
  const move = colon < 0 ? '' : label.slice(colon + 1);
  const arrow = move.indexOf('->');
  const from = arrow < 0 ? move : move.slice(0, arrow);
  const to = arrow < 0 ? '' : move.slice(arrow + 2);
  const lift = TIERS.includes(from) && TIERS.includes(to) && TIERS.indexOf(to) > TIERS.indexOf(from);
  return { kind, rule: kind.replace(/\[.*$/, ''), from, to, lift };
}

/**
 * The rules that changed the tier; those that lifted it stand out (`↑ session SIMPLE → EXPERT`).
 * @param {readonly string[]} labels
 */
function rulesCell(labels) {
  if (labels.length === 0) return h('td', {}, [h('span', { class: 'muted' }, ['–'])]);
  const chipsOf = labels.map((label) => {
    const rule = parseRuleLabel(label);
    const move = rule.to === '' ? rule.from : `${rule.from} → ${rule.to}`;
    return h(
      'span',
      {
        class: rule.lift ? 'chip rule lift' : 'chip rule',
        'data-testid': 'rule',
        'data-rule': rule.rule,
        'data-lift': String(rule.lift),
        title: rule.lift ? `${rule.kind} lifted the tier from ${rule.from} to ${rule.to}` : label,
      },
      [`${rule.lift ? '↑ ' : ''}${rule.kind} ${move}`],
    );
  });
  return h('td', {}, [h('span', { class: 'chips' }, chipsOf)]);
}

/** @param {readonly string[]} items @param {number} [limit] */
function chips(items, limit = 4) {
  const list = h('span', { class: 'chips' });
  for (const item of items.slice(0, limit)) list.append(h('span', { class: 'chip' }, [item]));
  if (items.length > limit)
    list.append(
      h('span', { class: 'chip more', title: items.slice(limit).join(', ') }, [`+${items.length - limit}`]),
    );
  if (items.length === 0) list.append(h('span', { class: 'muted' }, ['–']));
  return list;
}

/** The key typed by the operator, kept per tab. */
const keyStore = {
  get: () => sessionStorage.getItem(KEY_STORAGE) ?? '',
  /** @param {string} key */
  set: (key) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

/** @param {Record<string, string>} [extra] */
function authHeaders(extra = {}) {
  const key = keyStore.get();
  return key === '' ? extra : { ...extra, authorization: `Bearer ${key}` };
}

/**
 * The parsed JSON body, typed unknown: each caller states what it expects.
 * @param {Response} response
 * @returns {Promise<unknown>}
 */
async function readJson(response) {
  /** @type {unknown} */
  const body = await response.json();
  return body;
}

/**
 * The message of an OpenAI-shaped error body, or the status text.
 * @param {Response} response
 */
async function toErrorMessage(response) {
  try {
    const body = /** @type {{ error?: { message?: string } }} */ (await readJson(response));
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: fall through to the status line
  }
  return `${response.status} ${response.statusText}`;
}

/** @param {Record<string, number>} counts */
const sumOf = (counts) => Object.values(counts).reduce((sum, count) => sum + count, 0);

/**
 * Renders one share card: a bar per key, known keys first (so the layout stays put).
 * @param {HTMLElement} list
 * @param {{ counts: Record<string, number>, known: string[], kind: string, empty?: string }} input
 */
function renderShares(list, { counts, known, kind, empty }) {
  const total = sumOf(counts);
  const keys = [
    ...known,
    ...Object.keys(counts)
      .filter((key) => !known.includes(key))
      .sort(),
  ];
  if (keys.length === 0 && empty !== undefined) {
    list.replaceChildren(h('li', { class: 'muted' }, [empty]));
    return;
  }
  list.replaceChildren(
    ...keys.map((key) => {
      const count = counts[key] ?? 0;
      const share = total === 0 ? 0 : count / total;
      return h(
        'li',
        {
          class: `bar-row ${count === 0 ? 'zero' : ''}`,
          'data-testid': `share-${kind}-${key}`,
          'data-count': String(count),
        },
        [
          h('span', { class: 'bar-label', title: key }, [key]),
          h('span', { class: 'bar-track' }, [
            h('span', {
              class: `bar-fill ${kind}-${key.toLowerCase()}`,
              style: `width: ${(share * 100).toFixed(1)}%`,
            }),
          ]),
          h('span', { class: 'bar-value' }, [total === 0 ? '–' : formatPercent(share)]),
          h('span', { class: 'bar-count' }, [String(count)]),
        ],
      );
    }),
  );
}

/** @param {Activity} activity */
function renderFigures(activity) {
  const minutes = Math.round(activity.windowMs / 60_000);
  byId('request-count', HTMLElement).textContent = String(sumOf(activity.byTier));
  byId('request-window', HTMLElement).textContent = `routed in the last ${minutes} min`;
  byId('rejected-count', HTMLElement).textContent = String(sumOf(activity.byRejectedCode));
  byId('rejected-window', HTMLElement).textContent = `answered before routing in the last ${minutes} min`;
  byId('footer-window', HTMLElement).textContent = `shares over the last ${minutes} min`;
  const { llm } = activity;
  byId('llm-share', HTMLElement).textContent =
    llm.classified === 0 ? '–' : formatPercent(llm.calls / llm.classified);
  byId('llm-detail', HTMLElement).textContent =
    `${llm.calls} of ${llm.classified} classified · p50 ${formatMs(llm.p50Ms)} · p95 ${formatMs(llm.p95Ms)}`;
  byId('fallbacks-per-minute', HTMLElement).textContent = String(activity.fallbacksPerMinute);
  const continued = activity.continuations;
  byId('continued-count', HTMLElement).textContent = String(continued['continued'] ?? 0);
  const notContinued = sumOf(continued) - (continued['continued'] ?? 0);
  byId('continued-detail', HTMLElement).textContent =
    `of ${sumOf(continued)} broken streams in the last ${minutes} min · ${notContinued} ended with an error`;
  const errors = Object.values(activity.recentErrors).flatMap((perOutcome) => Object.values(perOutcome));
  byId('error-count', HTMLElement).textContent = String(errors.reduce((sum, count) => sum + count, 0));
  renderShares(byId('tier-shares', HTMLElement), { counts: activity.byTier, known: TIERS, kind: 'tier' });
  renderShares(byId('cause-shares', HTMLElement), { counts: activity.byCause, known: CAUSES, kind: 'cause' });
  renderShares(byId('rejected-shares', HTMLElement), {
    counts: activity.byRejectedCode,
    known: [],
    kind: 'rejected',
    empty: 'No rejected requests in the window.',
  });
}

/** @param {State} state */
function renderMeta(state) {
  const table = state.routing_table;
  byId('table-source', HTMLElement).textContent = table.source;
  byId('table-version', HTMLElement).textContent = String(table.version);
  byId('table-loaded', HTMLElement).textContent = formatTime(Date.parse(table.loaded_at));
  const classifier = state.classifier.deployment
    ? `${state.classifier.mode} · ${state.classifier.deployment}`
    : state.classifier.mode;
  byId('classifier-mode', HTMLElement).textContent = classifier;
  const shared = state.shared_state;
  const sharedText = byId('shared-state', HTMLElement);
  sharedText.textContent = shared.degraded ? `${shared.kind} (degraded)` : shared.kind;
  sharedText.classList.toggle('warn-text', shared.degraded);
  const warnings = byId('warnings', HTMLElement);
  warnings.hidden = table.warnings.length === 0;
  warnings.replaceChildren(...table.warnings.map((warning) => h('p', {}, [`⚠ ${warning}`])));
}

/** Server time minus local time, in ms, so cooldown countdowns follow the server's clock. */
let clockSkewMs = 0;

/** @param {HTMLElement} cell */
function tickCountdown(cell) {
  const until = Number(cell.dataset['until']);
  const left = (until - (Date.now() + clockSkewMs)) / 1000;
  cell.textContent = left > 0 ? formatCountdown(left) : 'probing';
}

/** @param {DeploymentState} deployment */
function cooldownCell(deployment) {
  if (deployment.cooldown === null) return h('td', {}, [h('span', { class: 'muted' }, ['–'])]);
  const countdown = h('span', {
    class: 'countdown',
    'data-testid': 'cooldown-countdown',
    'data-until': String(Date.parse(deployment.cooldown.until)),
  });
  tickCountdown(countdown);
  const failures = deployment.cooldown.consecutive_failures;
  return h('td', {}, [
    countdown,
    h('span', { class: 'cooldown-reason' }, [
      `${deployment.cooldown.reason} · ${failures} failure${failures === 1 ? '' : 's'}`,
    ]),
  ]);
}

/** @param {DeploymentState} deployment */
function inFlightCell(deployment) {
  const max = deployment.max_concurrency;
  const children = [
    h('span', { class: 'num-text' }, [
      isNumber(max) ? `${deployment.in_flight} / ${max}` : String(deployment.in_flight),
    ]),
  ];
  if (isNumber(max) && max > 0) {
    const share = Math.min(1, deployment.in_flight / max);
    children.push(
      h('span', { class: 'mini-track' }, [
        h('span', { class: 'mini-fill', style: `width: ${(share * 100).toFixed(0)}%` }),
      ]),
    );
  }
  return h('td', { 'data-testid': 'in-flight' }, children);
}

/** @param {Record<string, number>} errors */
function errorsCell(errors) {
  const entries = Object.entries(errors).sort((a, b) => b[1] - a[1]);
  return h('td', {}, [
    chips(
      entries.map(([outcome, count]) => `${outcome} ×${count}`),
      3,
    ),
  ]);
}

/**
 * The last hour of one deployment: TTFT p50 / p95 of its answered calls, and its failed calls.
 * @param {DeploymentHistory | undefined} history
 */
function hourCells(history) {
  const total = history?.total;
  const failed = total === undefined || total.attempts === 0 ? '–' : `${total.failures} of ${total.attempts}`;
  const share =
    total === undefined || total.attempts === 0 ? '' : ` (${formatPercent(total.failures / total.attempts)})`;
  return [
    h('td', { class: 'num', 'data-testid': 'hour-ttft' }, [
      total === undefined ? '–' : `${formatMs(total.ttftP50Ms)} / ${formatMs(total.ttftP95Ms)}`,
    ]),
    h('td', { class: 'num', 'data-testid': 'hour-errors' }, [`${failed}${share}`]),
  ];
}

/**
 * @param {DeploymentState[]} deployments
 * @param {History | undefined} history
 */
function renderDeployments(deployments, history) {
  const rows = deployments.map((deployment) =>
    h(
      'tr',
      { 'data-testid': 'deployment-row', 'data-deployment': deployment.id, 'data-health': deployment.health },
      [
        h('td', { class: 'strong' }, [deployment.id]),
        h('td', { class: 'mono' }, [deployment.model]),
        h('td', {}, [
          h('span', { class: `badge health health-${deployment.health}`, 'data-testid': 'health-badge' }, [
            HEALTH_LABELS[deployment.health] ?? deployment.health,
          ]),
        ]),
        cooldownCell(deployment),
        inFlightCell(deployment),
        h('td', { class: 'num' }, [formatMs(deployment.ttft_ewma_ms)]),
        ...hourCells(history?.deployments[deployment.id]),
        errorsCell(deployment.recent_errors),
      ],
    ),
  );
  byId('deployments-body', HTMLElement).replaceChildren(...rows);
  const healthy = deployments.filter((deployment) => deployment.health === 'healthy').length;
  byId('deployment-summary', HTMLElement).textContent = `${healthy} of ${deployments.length} healthy`;
}

/** @param {RequestSummary} request */
function statusCell(request) {
  const ok = request.status < 400 && request.errorCode === undefined;
  const label =
    request.errorCode === undefined ? String(request.status) : `${request.status} ${request.errorCode}`;
  const notes = [];
  if (request.fallbacks > 0)
    notes.push(request.fallbacks === 1 ? 'fallback' : `${request.fallbacks} fallbacks`);
  if (request.attempts > 1) notes.push(`${request.attempts} tries`);
  return h('td', { class: 'nowrap' }, [
    h('span', { class: `badge status ${ok ? 'status-ok' : 'status-error'}`, title: request.errorMessage }, [
      label,
    ]),
    notes.length === 0 ? null : h('span', { class: 'note' }, [notes.join(' · ')]),
  ]);
}

/**
 * A request autotier answered itself: no tier, cause or deployment; the method and path instead.
 * @param {RequestSummary} request
 */
function rejectedRow(request) {
  const call = `${request.method} ${request.path}`;
  return h(
    'tr',
    {
      'data-testid': 'decision-row',
      'data-request-id': request.requestId,
      'data-outcome': 'rejected',
      class: 'rejected-row',
      title:
        request.keyName === undefined ? request.endpoint : `key ${request.keyName} · ${request.endpoint}`,
    },
    [
      h('td', { class: 'mono' }, [formatTime(request.endedAt)]),
      h('td', {}, [h('span', { class: 'badge outcome-rejected', 'data-testid': 'tier' }, ['rejected'])]),
      h('td', { colspan: '5', class: 'mono call', 'data-testid': 'call', title: call }, [call]),
      h('td', { class: 'num' }, ['–']),
      h('td', { class: 'num' }, [formatMs(request.durationMs)]),
      statusCell(request),
    ],
  );
}

/** @param {RequestSummary} request */
function decisionRow(request) {
  if (request.outcome === 'rejected') return rejectedRow(request);
  const title = [
    request.keyName === undefined ? undefined : `key ${request.keyName}`,
    `${request.endpoint}${request.stream ? ' (stream)' : ''}`,
    request.complexity === undefined ? undefined : `complexity ${request.complexity}`,
    request.rules.length === 0 ? undefined : `rules: ${request.rules.join(', ')}`,
  ]
    .filter(Boolean)
    .join(' · ');
  const attributes = {
    'data-testid': 'decision-row',
    'data-request-id': request.requestId,
    'data-outcome': 'routed',
    title,
  };
  return h('tr', attributes, [
    h('td', { class: 'mono' }, [formatTime(request.endedAt)]),
    h('td', {}, [tierBadge(request.tier)]),
    h('td', { class: 'nowrap' }, [
      causeBadge(request.cause, request.cacheStage),
      request.llmCalled ? h('span', { class: 'note' }, ['LLM']) : null,
    ]),
    rulesCell(request.rules),
    h('td', { class: 'num' }, [isNumber(request.confidence) ? request.confidence.toFixed(2) : '–']),
    h('td', {}, [chips(request.signals, 3)]),
    h('td', { class: 'mono' }, [request.deployment ?? '–']),
    h('td', { class: 'num' }, [formatMs(request.ttftMs)]),
    h('td', { class: 'num' }, [formatMs(request.durationMs)]),
    statusCell(request),
  ]);
}

/** @param {RequestSummary[]} requests */
function renderDecisions(requests) {
  const shown = requests.slice(0, MAX_ROWS);
  const body = byId('decisions-body', HTMLElement);
  if (shown.length === 0) {
    body.replaceChildren(
      h('tr', { class: 'empty' }, [
        h('td', { colspan: '10' }, ['No requests yet. Decisions appear here as traffic arrives.']),
      ]),
    );
  } else body.replaceChildren(...shown.map(decisionRow));
  byId('decision-summary', HTMLElement).textContent =
    requests.length > shown.length
      ? `latest ${shown.length} of ${requests.length}`
      : `${requests.length} kept`;
}

/**
 * @param {'ok' | 'error' | 'loading' | 'auth'} state
 * @param {string} text
 */
function setStatus(state, text) {
  const status = byId('status', HTMLElement);
  status.dataset['state'] = state;
  status.textContent = text;
}

/**
 * Shows the key panel with why it is shown.
 * @param {{ reason: string, error?: string }} input
 */
function askForKey({ reason, error }) {
  byId('key-panel', HTMLElement).hidden = false;
  byId('key-reason', HTMLElement).textContent = reason;
  const errorText = byId('key-error', HTMLElement);
  errorText.hidden = error === undefined;
  errorText.textContent = error ?? '';
  byId('key-input', HTMLInputElement).focus();
}

/** @param {Response} response @param {number} localMs local time in the middle of the request */
function updateSkew(response, localMs) {
  const date = Date.parse(response.headers.get('date') ?? '');
  // The Date header has a 1 s resolution: correct only skews larger than that.
  if (isNumber(date) && Math.abs(date + 500 - localMs) > 2000) clockSkewMs = date + 500 - localMs;
  else clockSkewMs = 0;
}

/** @param {Summary} summary */
function render(summary) {
  if (isNumber(summary.now)) clockSkewMs = summary.now - Date.now();
  renderMeta(summary.state);
  renderFigures(summary.activity);
  renderDeployments(summary.state.deployments, summary.history);
  renderDecisions(summary.activity.requests);
  const history = byId('history', HTMLElement);
  history.hidden = summary.history === undefined;
  if (summary.history !== undefined) {
    history.dataset['total'] = String(summary.history.totals.requests);
    renderHistory(history, summary.history);
  }
}

let inFlight = false;
/** A refresh asked for while one was running (e.g. a new key): it runs right after. */
let again = false;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
/** True while the server refuses the key we have: polling waits for a new key. */
let blocked = false;

/** While locked, only the key panel shows: no stale or empty data. @param {boolean} locked */
function setLocked(locked) {
  blocked = locked;
  document.body.toggleAttribute('data-locked', locked);
}

async function refresh() {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  again = false;
  setStatus('loading', 'updating…');
  try {
    const started = Date.now();
    const response = await fetch('api/summary', { headers: authHeaders(), cache: 'no-store' });
    if (response.status === 401 || response.status === 403) {
      setLocked(true);
      const message = await toErrorMessage(response);
      const hadKey = keyStore.get() !== '';
      // An unknown key is dropped so the explain box does not keep sending it.
      if (response.status === 401) keyStore.clear();
      byId('forget-key', HTMLElement).hidden = keyStore.get() === '';
      askForKey({
        reason:
          response.status === 403
            ? 'This key is valid but not an admin key; the dashboard needs an admin key.'
            : 'This server has API keys configured; the dashboard needs an admin key.',
        ...(hadKey ? { error: `Key refused: ${message}` } : {}),
      });
      setStatus('auth', response.status === 403 ? 'not an admin key' : 'key needed');
      return;
    }
    if (!response.ok) throw new Error(await toErrorMessage(response));
    updateSkew(response, (started + Date.now()) / 2);
    render(/** @type {Summary} */ (await readJson(response)));
    setLocked(false);
    byId('key-panel', HTMLElement).hidden = true;
    byId('forget-key', HTMLElement).hidden = keyStore.get() === '';
    setStatus('ok', `updated ${formatTime(Date.now())}`);
  } catch (error) {
    setStatus('error', `cannot reach autotier: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    inFlight = false;
    if (again) void refresh();
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    if (byId('live', HTMLInputElement).checked && !blocked && document.visibilityState === 'visible')
      await refresh();
    schedule();
  }, POLL_MS);
}

/** @param {{ title: string, value: Node | string, testId?: string, wide?: boolean }} input */
const fact = ({ title, value, testId, wide = false }) =>
  h('div', { class: wide ? 'fact wide' : 'fact' }, [
    h('dt', {}, [title]),
    h('dd', testId === undefined ? {} : { 'data-testid': testId }, [value]),
  ]);

/** @param {TierChange[]} rules */
function rulesList(rules) {
  if (rules.length === 0)
    return h('p', { class: 'muted', 'data-testid': 'explain-rules' }, ['No rule changed the tier.']);
  return h(
    'ol',
    { class: 'rules', 'data-testid': 'explain-rules' },
    rules.map((rule) =>
      h('li', { 'data-testid': 'explain-rule', 'data-rule': rule.rule }, [
        h('span', { class: 'rule-name' }, [
          rule.name === undefined ? rule.rule : `${rule.rule} ${rule.name}`,
        ]),
        h('span', { class: 'rule-move' }, [`${rule.from || '–'} → ${rule.to || '–'}`]),
        h('span', { class: 'rule-reason' }, [rule.reason]),
      ]),
    ),
  );
}

/** @param {Explanation} explanation */
function deploymentOrder(explanation) {
  const entry = (/** @type {string} */ id, /** @type {string} */ role) =>
    h('li', { class: role }, [h('span', { class: 'mono' }, [id]), h('span', { class: 'role' }, [role])]);
  return h('ol', { class: 'order', 'data-testid': 'explain-deployments' }, [
    ...explanation.group.map((id) => entry(id, `group · ${explanation.strategy}`)),
    ...explanation.fallback.map((id) => entry(id, 'fallback')),
  ]);
}

/** @param {Explanation} explanation */
function renderExplanation(explanation) {
  const stages = Object.entries(explanation.stage_latency_ms ?? {}).map(
    ([stage, ms]) => `${stage} ${formatMs(ms)}`,
  );
  const timeouts = Object.entries(explanation.timeouts ?? {}).map(
    ([name, ms]) => `${name.replace(/_ms$/, '')} ${formatMs(ms)}`,
  );
  const result = byId('explain-result', HTMLElement);
  result.replaceChildren(
    h('div', { class: 'explain-headline' }, [
      h(
        'span',
        { class: `badge tier big tier-${explanation.tier.toLowerCase()}`, 'data-testid': 'explain-tier' },
        [explanation.tier],
      ),
      h('span', { class: 'headline-text' }, [
        explanation.complexity === null
          ? `${explanation.cause}`
          : `classified ${explanation.complexity} by ${explanation.cause}`,
      ]),
    ]),
    h('dl', { class: 'facts' }, [
      fact({ title: 'cause', value: causeBadge(explanation.cause), testId: 'explain-cause' }),
      fact({
        title: 'confidence',
        value: isNumber(explanation.confidence) ? explanation.confidence.toFixed(2) : '–',
        testId: 'explain-confidence',
      }),
      fact({ title: 'prompt tokens', value: String(explanation.prompt_tokens), testId: 'explain-tokens' }),
      fact({ title: 'max_tokens', value: String(explanation.max_tokens) }),
      fact({ title: 'classifier time', value: stages.length === 0 ? '–' : stages.join(' · ') }),
      fact({ title: 'timeouts', value: timeouts.join(' · ') || '–', wide: true }),
    ]),
    h('p', { class: 'reason', hidden: explanation.reason === null ? '' : undefined }, [
      explanation.reason ?? '',
    ]),
    h('div', { class: 'explain-columns' }, [
      h('section', {}, [h('h3', {}, ['Rules']), rulesList(explanation.rules)]),
      h('section', {}, [h('h3', {}, ['Deployment order']), deploymentOrder(explanation)]),
      h('section', {}, [h('h3', {}, ['Signals']), chips(explanation.signals, 12)]),
    ]),
  );
  result.hidden = false;
}

/** @param {SubmitEvent} event */
async function explain(event) {
  event.preventDefault();
  const prompt = byId('explain-prompt', HTMLTextAreaElement).value;
  const minTier = byId('explain-min-tier', HTMLSelectElement).value;
  const errorText = byId('explain-error', HTMLElement);
  const button = byId('explain-submit', HTMLButtonElement);
  button.disabled = true;
  errorText.hidden = true;
  try {
    const response = await fetch('../v1/route', {
      method: 'POST',
      headers: authHeaders({
        'content-type': 'application/json',
        ...(minTier === '' ? {} : { 'x-autotier-min-tier': minTier }),
      }),
      body: JSON.stringify({
        model: byId('explain-model', HTMLSelectElement).value,
        messages: [{ role: 'user', content: prompt }],
      }),
    });
    if (response.status === 401)
      askForKey({ reason: 'Explaining a prompt needs an API key on this server.' });
    if (!response.ok) throw new Error(await toErrorMessage(response));
    renderExplanation(/** @type {Explanation} */ (await readJson(response)));
  } catch (error) {
    errorText.textContent = error instanceof Error ? error.message : String(error);
    errorText.hidden = false;
  } finally {
    button.disabled = false;
  }
}

/** Adds the served model names (GET /v1/models, with the key when there is one) to the explain box's model list. */
async function loadModels() {
  try {
    const response = await fetch('../v1/models', { headers: authHeaders() });
    if (!response.ok) return;
    const body = /** @type {{ data?: { id: string }[] }} */ (await readJson(response));
    const select = byId('explain-model', HTMLSelectElement);
    const present = new Set(Array.from(select.options).map((option) => option.value));
    for (const { id } of body.data ?? []) {
      if (!present.has(id)) select.append(h('option', { value: id }, [id]));
    }
  } catch {
    // the static list (auto and the tier aliases) is enough
  }
}

function start() {
  byId('refresh', HTMLButtonElement).addEventListener('click', () => void refresh());
  byId('key-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId('key-input', HTMLInputElement);
    keyStore.set(input.value.trim());
    input.value = '';
    void refresh();
  });
  byId('forget-key', HTMLButtonElement).addEventListener('click', () => {
    keyStore.clear();
    byId('forget-key', HTMLElement).hidden = true;
    void refresh();
  });
  byId('explain-form', HTMLFormElement).addEventListener('submit', (event) => void explain(event));
  byId('live', HTMLInputElement).addEventListener('change', () => void refresh());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !blocked) void refresh();
  });
  setInterval(
    () =>
      document
        .querySelectorAll('[data-until]')
        .forEach((cell) => tickCountdown(/** @type {HTMLElement} */ (cell))),
    1000,
  );
  void loadModels();
  void refresh();
  schedule();
}

start();
