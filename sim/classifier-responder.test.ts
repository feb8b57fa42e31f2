import { describe, expect, it } from 'vitest';
import { createClassifierResponder, toSimulatedVerdict, type SimTier } from './classifier-responder.js';

const TIERS: SimTier[] = ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'];

describe('the simulated classifier model', () => {
  it('answers the gold tier at the given accuracy, else one tier off, the same way every time', () => {
    for (const gold of TIERS) {
      let right = 0;
      for (let index = 0; index < 4000; index += 1) {
        const key = `prompt ${index}`;
        const verdict = toSimulatedVerdict(gold, key, { accuracy: 0.87, seed: 1 });
        expect(toSimulatedVerdict(gold, key, { accuracy: 0.87, seed: 1 })).toBe(verdict);
        const distance = TIERS.indexOf(verdict) - TIERS.indexOf(gold);
        if (distance === 0) right += 1;
        else expect(Math.abs(distance)).toBe(1);
      }
      expect(right / 4000).toBeGreaterThan(0.85);
      expect(right / 4000).toBeLessThan(0.89);
    }
  });

  it('replies with a verdict JSON for a classifier request and MODERATE for an unknown prompt', () => {
    const responder = createClassifierResponder({
      labelOf: (text) => (text === 'prove it' ? 'EXPERT' : undefined),
      accuracy: 0.999_99,
      seed: 1,
    });
    const ask = (text: string) =>
      responder({
        body: {
          messages: [
            { role: 'system', content: 's' },
            { role: 'user', content: JSON.stringify({ last_user_message: text }) },
          ],
        },
        headers: {},
      });
    expect(JSON.parse(ask('prove it')?.content ?? '{}')).toMatchObject({
      complexity: 'EXPERT',
      needs_vision: false,
    });
    expect(JSON.parse(ask('who knows')?.content ?? '{}')).toMatchObject({ complexity: 'MODERATE' });
    expect(
      responder({ body: { messages: [{ role: 'user', content: 'plain chat' }] }, headers: {} }),
    ).toBeUndefined();
  });
});
