import type { Logger } from '../shared/logger.js';
import { createSlotsWhileDown } from './slots-while-down.js';
import type { CooldownRecord, StateStore, WindowDecision } from './state-store.js';

export interface ResilientStoreOptions {
  /** The shared store (Redis). */
  primary: StateStore;
  /** The local store: mirrors every write, and serves every read while the primary is down. */
  local: StateStore;
  logger: Logger;
  /** Rate limits while the shared store is down: `open` lets requests through, `closed` refuses them. */
  rateLimitsWhenDown: 'open' | 'closed';
  /** Told on every failed shared-store call (metrics). */
  onError?: (operation: string) => void;
  /** Whether the shared store's connection is up (reads served from its cache say nothing about that). */
  connected?: () => boolean;
}

export interface ResilientStore extends StateStore {
  /** True while the last shared-store call failed. */
  degraded(): boolean;
  /** Failed shared-store calls since start. */
  errorCount(): number;
}

/** Refusal while the shared counters cannot be read and the operator chose to fail closed. */
const CLOSED: WindowDecision = { allowed: false, total: 0, retryAfterMs: 1000 };

/**
 * Keeps serving when Redis is gone: writes go to local memory first and then to Redis; reads come from
 * Redis and fall back to local memory; the first failure of an outage is logged, recovery too.
 */
export function createResilientStore(options: ResilientStoreOptions): ResilientStore {
  const { primary, local, logger } = options;
  let down = false;
  let errors = 0;
  const failed = (operation: string, error: unknown): void => {
    errors += 1;
    options.onError?.(operation);
    if (!down)
      logger.error('shared state store unavailable; serving on local state', {
        operation,
        error: (error as Error).message,
      });
    down = true;
  };
  const slotsWhileDown = createSlotsWhileDown(options.rateLimitsWhenDown);
  const succeeded = (): void => {
    if (!down) return;
    logger.info('shared state store is back');
    down = false;
    void slotsWhileDown.handOver(primary).catch((error: unknown) => failed('acquireSlot', error));
  };
  async function read<T>(
    operation: string,
    shared: () => Promise<T>,
    fallback: () => Promise<T>,
  ): Promise<T> {
    try {
      const value = await shared();
      succeeded();
      return value;
    } catch (error) {
      failed(operation, error);
      return fallback();
    }
  }
  /** Local first (always consistent for this process), then shared; a shared failure is absorbed. */
  async function write(
    operation: string,
    localWrite: () => Promise<void>,
    sharedWrite: () => Promise<void>,
  ): Promise<void> {
    await localWrite();
    await read(operation, sharedWrite, () => Promise.resolve());
  }
  /**
   * Cooldowns as Redis has them, copied into the local store, so that during an outage this process
   * serves on the last shared view (a cooldown another instance lifted is lifted here too).
   */
  async function readSharedCooldowns(ids: readonly string[]): Promise<ReadonlyMap<string, CooldownRecord>> {
    const shared = await primary.getCooldowns(ids);
    for (const id of ids) {
      const record = shared.get(id);
      await local.clearCooldown(id);
      if (record !== undefined) await local.setCooldown(id, record);
    }
    return shared;
  }
  const limitFallback = (consume: () => Promise<WindowDecision>) => (): Promise<WindowDecision> =>
    options.rateLimitsWhenDown === 'open'
      ? consume().then((decision) => ({ ...decision, allowed: true, retryAfterMs: 0 }))
      : Promise.resolve(CLOSED);

  return {
    degraded: () => down || options.connected?.() === false,
    errorCount: () => errors,
    getCooldowns: (ids) =>
      read(
        'getCooldowns',
        () => readSharedCooldowns(ids),
        () => local.getCooldowns(ids),
      ),
    setCooldown: (id, record) =>
      write(
        'setCooldown',
        () => local.setCooldown(id, record),
        () => primary.setCooldown(id, record),
      ),
    clearCooldown: (id) =>
      write(
        'clearCooldown',
        () => local.clearCooldown(id),
        () => primary.clearCooldown(id),
      ),
    acquireProbe: (id, ttlMs) =>
      read(
        'acquireProbe',
        () => primary.acquireProbe(id, ttlMs),
        () => local.acquireProbe(id, ttlMs),
      ),
    releaseProbe: (id) =>
      write(
        'releaseProbe',
        () => local.releaseProbe(id),
        () => primary.releaseProbe(id),
      ),
    addInFlight: (id, delta) =>
      write(
        'addInFlight',
        () => local.addInFlight(id, delta),
        () => primary.addInFlight(id, delta),
      ),
    getInFlight: (ids) =>
      read(
        'getInFlight',
        () => primary.getInFlight(ids),
        () => local.getInFlight(ids),
      ),
    recordLatency: (sample) =>
      write(
        'recordLatency',
        () => local.recordLatency(sample),
        () => primary.recordLatency(sample),
      ),
    getLatencies: (ids) =>
      read(
        'getLatencies',
        () => primary.getLatencies(ids),
        () => local.getLatencies(ids),
      ),
    getSessionTier: (key) =>
      read(
        'getSessionTier',
        () => primary.getSessionTier(key),
        () => local.getSessionTier(key),
      ),
    raiseSessionTier: (session) =>
      write(
        'raiseSessionTier',
        () => local.raiseSessionTier(session),
        () => primary.raiseSessionTier(session),
      ),
    consumeWindow: (request) =>
      read(
        'consumeWindow',
        () => primary.consumeWindow(request),
        limitFallback(() => local.consumeWindow(request)),
      ),
    consumePeriod: (request) =>
      read(
        'consumePeriod',
        () => primary.consumePeriod(request),
        limitFallback(() => local.consumePeriod(request)),
      ),
    acquireSlot: (request) =>
      read(
        'acquireSlot',
        () => primary.acquireSlot(request),
        () => Promise.resolve(slotsWhileDown.grant(request.key)),
      ),
    releaseSlot: (key) =>
      slotsWhileDown.release(key)
        ? Promise.resolve()
        : read(
            'releaseSlot',
            () => primary.releaseSlot(key),
            () => Promise.resolve(),
          ),
    async close() {
      await primary.close();
      await local.close();
    },
  };
}
