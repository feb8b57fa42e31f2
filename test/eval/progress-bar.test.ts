import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatDuration, formatProgress } from '../../eval/progress-bar.js';

describe('formatProgress', () => {
  it('shows the bar, count, share, rate and an ETA from the rate so far', () => {
    // 100 of 400 in 10 s: 10/s, 300 left -> 30 s.
    expect(formatProgress({ done: 100, total: 400, elapsedMs: 10_000 })).toBe(
      '[######------------------] 100/400  25% 10.0/s ETA 0:30',
    );
  });

  it('has no ETA before the first case and a full bar at the end', () => {
    expect(formatProgress({ done: 0, total: 5, elapsedMs: 0 })).toContain('ETA --:--');
    expect(formatProgress({ done: 5, total: 5, elapsedMs: 1000 })).toMatch(
      /^\[#{24}\] 5\/5 100% 5\.0\/s ETA 0:00$/,
    );
  });

  it('formats long durations with hours', () => {
    expect(formatDuration(3_723_000)).toBe('1:02:03');
    expect(formatDuration(59_400)).toBe('0:59');
  });
});

describe('createProgressReporter', () => {
  function setUp(isTty: boolean) {
    let time = 0;
    const written: string[] = [];
    const reporter = createProgressReporter({
      total: 100,
      label: 'llm',
      write: (text) => written.push(text),
      isTty,
      now: () => time,
    });
    return { reporter, written, advance: (ms: number) => (time += ms) };
  }

  it('redraws one terminal line at most every 100 ms, and always the last update', () => {
    const { reporter, written, advance } = setUp(true);
    reporter.update(1);
    advance(50);
    reporter.update(2);
    advance(60);
    reporter.update(3);
    reporter.update(100);
    reporter.finish();
    expect(written.map((text) => text.match(/ (\d+)\/100/)?.[1] ?? text)).toEqual(['1', '3', '100', '\n']);
    expect(written[0]?.startsWith('\rllm [')).toBe(true);
  });

  it('writes a log line per 10% only once a run takes longer than 2 s', () => {
    const { reporter, written, advance } = setUp(false);
    reporter.update(10);
    advance(2500);
    reporter.update(15);
    reporter.update(20);
    reporter.update(25);
    reporter.finish();
    expect(written.map((text) => text.match(/ (\d+)\/100/)?.[1])).toEqual(['15', '20']);
    expect(written[0]).toMatch(/^llm \[.*\n$/);
  });
});
