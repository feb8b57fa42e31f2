import { describe, expect, it } from 'vitest';
import { createLatencySketch, SKETCH_BINS } from './latency-sketch.js';

/** The exact quantile of a sorted list, by the same rank rule (the ceil(q * n)-th value). */
function exact(sorted: readonly number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? NaN;
}

describe('latency sketch', () => {
  it('is empty until a value is added', () => {
    const sketch = createLatencySketch();
    expect(sketch.count()).toBe(0);
    expect(sketch.quantile(0.5)).toBeUndefined();
  });

  it('answers a single value, and equal values, exactly', () => {
    const sketch = createLatencySketch();
    sketch.add(237);
    expect(sketch.quantile(0.5)).toBe(237);
    expect(sketch.quantile(0.95)).toBe(237);
    for (let index = 0; index < 10; index += 1) sketch.add(237);
    expect(sketch.quantile(0.05)).toBe(237);
  });

  it('reads p50 and p95 within 5 % of the exact values over four orders of magnitude', () => {
    const sketch = createLatencySketch();
    const values: number[] = [];
    // a deterministic spread from 2 ms to about 20 s
    for (let index = 0; index < 5000; index += 1) {
      const value = 2 * 10 ** (((index * 7919) % 5000) / 1250);
      values.push(value);
      sketch.add(value);
    }
    values.sort((a, b) => a - b);
    for (const fraction of [0.5, 0.95, 0.99]) {
      const read = sketch.quantile(fraction) ?? NaN;
      expect(Math.abs(read - exact(values, fraction)) / exact(values, fraction)).toBeLessThan(0.05);
    }
  });

  it('keeps a fixed size whatever it is fed, and counts hostile values as 0 or in the last bin', () => {
    const sketch = createLatencySketch();
    for (let index = 0; index < 100_000; index += 1) sketch.add(index * 97);
    sketch.add(Number.NaN);
    sketch.add(-5);
    sketch.add(Number.POSITIVE_INFINITY);
    sketch.add(1e15);
    expect(sketch.bins.length).toBe(SKETCH_BINS);
    expect(SKETCH_BINS).toBeLessThanOrEqual(200);
    expect(sketch.count()).toBe(100_004);
    expect(sketch.quantile(0)).toBe(0);
    expect(sketch.quantile(1)).toBe(1e15);
  });

  it('merges another sketch as if its values had been added', () => {
    const left = createLatencySketch();
    const right = createLatencySketch();
    const both = createLatencySketch();
    for (let index = 1; index <= 100; index += 1) {
      (index % 2 === 0 ? left : right).add(index * 10);
      both.add(index * 10);
    }
    left.merge(right);
    expect(left.count()).toBe(100);
    expect(left.quantile(0.5)).toBe(both.quantile(0.5));
    expect(left.quantile(0.95)).toBe(both.quantile(0.95));
    expect(left.min).toBe(10);
    expect(left.max).toBe(1000);
  });
});
