import { describe, expect, it } from 'vitest';
import { toCost } from './deployment-cost.js';

describe('toCost', () => {
  const price = { input_per_million: 0.12, output_per_million: 0.48 };

  it('charges prompt and completion tokens at their own price per million', () => {
    expect(toCost({ price }, { promptTokens: 1_000_000, completionTokens: 0 })).toBe(0.12);
    expect(toCost({ price }, { promptTokens: 1200, completionTokens: 350 })).toBe(0.000312);
  });

  it('keeps many small costs exact when summed at a billionth', () => {
    const one = toCost({ price }, { promptTokens: 7, completionTokens: 3 }) ?? 0;
    expect(one).toBe(0.00000228);
    expect(Math.round(one * 1e9) * 1000).toBe(2_280_000);
  });

  it('is unknown, not free, without a price', () => {
    expect(toCost({}, { promptTokens: 10, completionTokens: 10 })).toBeUndefined();
    expect(
      toCost(
        { price: { input_per_million: 0, output_per_million: 0 } },
        { promptTokens: 10, completionTokens: 10 },
      ),
    ).toBe(0);
  });
});
