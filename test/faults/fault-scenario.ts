import type { HealthProbesConfig } from '../../src/config/table-part-schemas.js';
import type { FaultSpec, SimBackendOptions } from '../../sim/index.js';
import type { Mode } from './call-chat.js';
import type { FaultStack } from './start-fault-stack.js';

/**
 * Per-tier timeouts of the suite, in ms: small, so the whole table runs in well under a minute, and
 * apart enough that an answer "at once" (under MARGIN_MS) cannot be one that waited for ttft or idle.
 */
export const SUITE_TIMEOUTS = { connect_ms: 300, ttft_ms: 1200, idle_ms: 900, total_ms: 4000 };
/** Bench time without Retry-After, in ms; long enough that the request after a failure still sees it. */
export const SUITE_COOLDOWN_MS = 2000;
/**
 * Slack for scheduling on a loaded, shared two-core machine (load averages of 10 seen), in ms; below
 * idle_ms and ttft_ms, so "at once" still means "no timer fired".
 */
export const MARGIN_MS = 800;
/** Elapsed-time window of an answer that needs no timer to fire. */
export const AT_ONCE: Window = [0, MARGIN_MS];

/** [min, max] elapsed ms. */
export type Window = readonly [number, number];

/** What the client must get. */
export type Expected =
  /** A whole answer (JSON with finish_reason, or SSE ending in [DONE]) from `from`, after `attempts` calls. */
  | {
      view: 'complete';
      from?: string;
      attempts?: number;
      fallbacks?: number;
      /** The answer broke and this deployment continued it (`autotier.continuations`). @default none */
      continuedBy?: string;
    }
  /** A 200 stream from `from` ended by an in-band error event with `code`, and no [DONE]. */
  | { view: 'in_band_error'; from: string; code: string }
  /** A non-200 JSON error body (never SSE, never a 200). */
  | { view: 'error'; status: number; code: string; retryAfter?: string }
  /** The client disconnected first (`abortOnCall`). */
  | { view: 'aborted' };

/** Upstream calls counted by the simulator, cumulative: an exact count or an upper bound. */
export type Calls = Record<string, number | { max: number }>;

/** A condition a step waits on, polled, with the longest wait it may take. */
export interface WaitFor {
  /** Names the condition in the failure message. */
  what: string;
  done: (stack: FaultStack) => boolean | Promise<boolean>;
  /** Counted from the start of the wait (after `clear`, `waitMs` and `advanceMs`), ms. */
  withinMs: number;
}

export interface Step {
  /** Faults to clear before the step, by backend id. */
  clear?: string[];
  /** Pause before the step, ms. */
  waitMs?: number;
  /**
   * Moves the app's clock this far ahead before the step, ms (after `waitMs`): cooldowns lapse on this
   * clock, so a scenario can keep a long cooldown that a loaded machine cannot let lapse early, and
   * still see what happens after it.
   */
  advanceMs?: number;
  /** Waits until a condition holds (after `advanceMs`), failing when it takes longer than allowed. */
  waitFor?: WaitFor;
  /** Expected status of GET /ready at the start of the step (after the wait). */
  ready?: 200 | 503;
  /** The next request and what it must get. */
  expect?: Expected;
  within?: Window;
  /** Sends the request this many times in a row. @default 1 */
  repeat?: number;
  /** Pause before each repeated request, ms. @default 0 */
  everyMs?: number;
  /**
   * At most one of the repeated requests per cooldown_ms (plus one) needed a second attempt: a bad
   * deployment costs clients one failover per cooldown, not one per request.
   */
  oneFailoverPerCooldown?: boolean;
  /** The answer's text is the first request's, word for word (a continued answer = an uninterrupted one). */
  sameTextAsFirst?: boolean;
  /** Calls counted after the step. */
  calls?: Calls;
  /** No upstream call at all during the step (e.g. none after the deadline). */
  noCalls?: boolean;
}

export interface FaultScenario {
  /** States the expected outcome; the suite adds the mode. */
  name: string;
  /** Deployments the routing table marks `continuation: true`. @default none */
  continuation?: string[];
  /** @default two backends a and b, 32k context */
  backends?: SimBackendOptions[];
  /** Ids in try order. @default ['a', 'b'] */
  group?: string[];
  fallback?: string[];
  /** Context window per deployment id as the routing table declares it. @default 32768 */
  windows?: Record<string, number>;
  timeouts?: Partial<typeof SUITE_TIMEOUTS>;
  cooldownMs?: number;
  /**
   * balancer.health_probes of the table. @default { enabled: false }: the suite's other scenarios
   * show the cooldown and the user half-open probe on their own.
   */
  healthProbes?: Partial<HealthProbesConfig>;
  /** Backend-wide faults set before the first request. */
  faults?: Record<string, FaultSpec>;
  /** Backends whose server is closed before the first request (connection refused). */
  closed?: string[];
  /**
   * The client of the first request disconnects `afterMs` (default 0) after `backend` received its
   * call: tied to the call, not to the send, so a slow machine cannot make it leave before the call.
   */
  abortOnCall?: { backend: string; afterMs?: number };
  /** Clears these faults once `onCall` has received its first call, while the first request is in flight. */
  during?: { onCall: string; clear: string[] };
  /** @default both */
  modes?: readonly Mode[];
  /** The first request; a function when stream and non-stream clients must see different things. */
  first: Expected | ((mode: Mode) => Expected);
  within: Window | ((mode: Mode) => Window);
  calls: Calls | ((mode: Mode) => Calls);
  /** What happens next: later requests, readiness, calls. */
  then?: Step[];
}

/** Answered once a timer of `ms` fired: not before it, not long after it. */
export const after = (ms: number): Window => [ms, ms + MARGIN_MS];

/** Waits until `id` has no cooldown: back in service. */
export const backInService = (id: string, withinMs: number): WaitFor => ({
  what: `${id} back in service`,
  done: async (stack) => !(await stack.store.getCooldowns([id])).has(id),
  withinMs,
});

/** Simulated backends serving `sim-model`, with default latency and context window. */
export const sims = (...ids: string[]): SimBackendOptions[] =>
  ids.map((id) => ({ id, models: ['sim-model'] }));

export const byMode = <T>(value: T | ((mode: Mode) => T), mode: Mode): T =>
  typeof value === 'function' ? (value as (mode: Mode) => T)(mode) : value;
