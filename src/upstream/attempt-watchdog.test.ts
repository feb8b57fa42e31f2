import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../shared/clock.js';
import { createAttemptWatchdog, type AttemptWatchdog } from './attempt-watchdog.js';

/** The fake timers move Date.now() too, so the watchdog's clock and its timer agree. */
const clock: Clock = { now: () => Date.now() };
const limits = (deadlineInMs = 60_000) => ({
  connectMs: 1000,
  ttftMs: 3000,
  idleMs: 500,
  deadlineAt: Date.now() + deadlineInMs,
});

describe('the attempt watchdog', () => {
  let controller: AbortController;
  let watchdog: AttemptWatchdog | undefined;
  const start = (deadlineInMs?: number): AttemptWatchdog => {
    watchdog = createAttemptWatchdog({ limits: limits(deadlineInMs), controller, clock, deploymentId: 'd1' });
    return watchdog;
  };
  const code = (): unknown => (controller.signal.reason as { code?: unknown } | undefined)?.code;
  beforeEach(() => {
    vi.useFakeTimers();
    controller = new AbortController();
  });
  afterEach(() => {
    watchdog?.stop();
    vi.useRealTimers();
  });

  it('aborts with a connect timeout when no headers arrive in time', () => {
    const dog = start();
    vi.advanceTimersByTime(999);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(code()).toBe('UPSTREAM_CONNECT_TIMEOUT');
    expect(dog.reason()?.code).toBe('UPSTREAM_CONNECT_TIMEOUT');
  });

  it('times the first token from the start of the attempt, ignoring chunks without content', () => {
    const dog = start();
    vi.advanceTimersByTime(200);
    dog.onHeaders();
    vi.advanceTimersByTime(2000);
    dog.onChunk(false);
    vi.advanceTimersByTime(799);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(code()).toBe('UPSTREAM_TTFT_TIMEOUT');
  });

  it('keeps a stream alive while chunks come faster than the idle limit, then fires after a gap', () => {
    const dog = start();
    dog.onHeaders();
    dog.onChunk(true);
    for (let index = 0; index < 20; index += 1) {
      vi.advanceTimersByTime(400);
      dog.onChunk(false);
    }
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(499);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(code()).toBe('UPSTREAM_IDLE_TIMEOUT');
  });

  it('does not count idle time while the read is paused for a reader that is behind, and counts again from the resume', () => {
    const dog = start();
    dog.onHeaders();
    dog.onChunk(true);
    vi.advanceTimersByTime(300);
    dog.onPause();
    vi.advanceTimersByTime(10_000);
    expect(controller.signal.aborted).toBe(false);
    dog.onResume();
    vi.advanceTimersByTime(499);
    expect(controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(code()).toBe('UPSTREAM_IDLE_TIMEOUT');
  });

  it('still fires the total deadline while the read is paused', () => {
    const dog = start(5000);
    dog.onHeaders();
    dog.onChunk(true);
    dog.onPause();
    vi.advanceTimersByTime(5000);
    expect(code()).toBe('DEADLINE_EXCEEDED');
  });

  it('starts the idle limit at the first content even when it is earlier than the first-token limit', () => {
    const dog = start();
    dog.onHeaders();
    vi.advanceTimersByTime(100);
    dog.onChunk(true);
    vi.advanceTimersByTime(500);
    expect(code()).toBe('UPSTREAM_IDLE_TIMEOUT');
  });

  it('fires the total deadline when it comes before every other limit', () => {
    const dog = start(300);
    dog.onHeaders();
    dog.onChunk(true);
    vi.advanceTimersByTime(200);
    dog.onChunk(false);
    vi.advanceTimersByTime(100);
    expect(code()).toBe('DEADLINE_EXCEEDED');
  });

  it('never fires after stop', () => {
    const dog = start();
    dog.stop();
    vi.advanceTimersByTime(120_000);
    expect(controller.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
