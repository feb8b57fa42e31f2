import { describe, expect, it } from 'vitest';
import { describeDifference } from './model-difference.js';

describe('model difference', () => {
  it('is undefined for equal texts', () => {
    expect(describeDifference('{"a":1}\n', '{"a":1}\n')).toBeUndefined();
  });

  it('names the first differing character and shows both sides from there', () => {
    expect(describeDifference('{"sha256":"ab12"}', '{"sha256":"ab34"}')).toBe(
      'they differ from character 13: committed "12\\"}", retrained "34\\"}"',
    );
  });

  it('reports a missing committed file as a difference at character 0', () => {
    expect(describeDifference('', '{}')).toMatch(/^they differ from character 0:/);
  });
});
