import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock.js';

/** What the fleet recently did with one request content. */
export interface ContentFaults {
  /** Deployments that answered this content 5xx, oldest first (at most `MAX_DEPLOYMENTS`). */
  deployments: readonly string[];
  /** Some deployment answered this content. */
  answered: boolean;
}

/**
 * In-process memory of request contents (by SHA-256 of the upstream body) that made deployments
 * answer 5xx, and of which contents failed on each deployment since its last success. Bounded: at
 * most `capacity` contents (the oldest goes first), each forgotten `ttlMs` after its last failure.
 * Each instance learns on its own; cooldowns themselves stay shared in the StateStore.
 */
export interface FaultMemory {
  /** The record of one content, or undefined when none is held (or it expired). */
  get(fingerprint: string): ContentFaults | undefined;
  /** Notes that `deploymentId` answered this content 5xx. */
  noteServerError(fingerprint: string, deploymentId: string): void;
  /** Notes that this content was answered (only contents already held are kept). */
  noteAnswered(fingerprint: string): void;
  /** Distinct contents that failed on the deployment since its last success. */
  failingContents(deploymentId: string): number;
  /** A success on the deployment: its failing contents start over. */
  noteSuccess(deploymentId: string): void;
  /** Contents held (0 lets a caller skip hashing bodies). */
  size(): number;
}

export interface FaultMemoryOptions {
  clock: Clock;
  /** Contents held at most. @default 1024 */
  capacity?: number;
  /** How long a content is remembered after its last failure, in ms. @default 600000 (10 minutes) */
  ttlMs?: number;
}

/** Deployments kept per content: two already make it the request's fault. */
const MAX_DEPLOYMENTS = 8;
/** Failing contents kept per deployment, and deployments tracked at most (ids come from the table). */
const MAX_FAILING = 16;
const MAX_TRACKED_DEPLOYMENTS = 4096;

interface Entry {
  deployments: string[];
  answered: boolean;
  expiresAt: number;
}

export function toFingerprint(path: string, body: string): string {
  return createHash('sha256').update(path).update('\n').update(body).digest('hex');
}

export function createFaultMemory(options: FaultMemoryOptions): FaultMemory {
  const capacity = options.capacity ?? 1024;
  const ttlMs = options.ttlMs ?? 600_000;
  const contents = new Map<string, Entry>();
  const failing = new Map<string, Set<string>>();

  const live = (fingerprint: string): Entry | undefined => {
    const entry = contents.get(fingerprint);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > options.clock.now()) return entry;
    contents.delete(fingerprint);
    return undefined;
  };

  return {
    get(fingerprint) {
      const entry = live(fingerprint);
      return entry === undefined
        ? undefined
        : { deployments: [...entry.deployments], answered: entry.answered };
    },
    noteServerError(fingerprint, deploymentId) {
      const entry = live(fingerprint) ?? { deployments: [], answered: false, expiresAt: 0 };
      if (!entry.deployments.includes(deploymentId) && entry.deployments.length < MAX_DEPLOYMENTS)
        entry.deployments.push(deploymentId);
      entry.expiresAt = options.clock.now() + ttlMs;
      contents.delete(fingerprint); // re-inserted last: the map's order is the eviction order
      contents.set(fingerprint, entry);
      if (contents.size > capacity) contents.delete(contents.keys().next().value ?? '');
      const set = failing.get(deploymentId) ?? new Set<string>();
      if (set.size < MAX_FAILING) set.add(fingerprint);
      if (!failing.has(deploymentId) && failing.size >= MAX_TRACKED_DEPLOYMENTS) failing.clear();
      failing.set(deploymentId, set);
    },
    noteAnswered(fingerprint) {
      const entry = live(fingerprint);
      if (entry !== undefined) entry.answered = true;
    },
    failingContents: (deploymentId) => failing.get(deploymentId)?.size ?? 0,
    noteSuccess(deploymentId) {
      failing.delete(deploymentId);
    },
    size: () => contents.size,
  };
}
