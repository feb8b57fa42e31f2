import { describe, expect, it } from 'vitest';
import { createThinkSplitter } from './think-splitter.js';

function split(deltas: readonly string[]): { reasoning: string; text: string } {
  const splitter = createThinkSplitter();
  let reasoning = '';
  let text = '';
  for (const piece of [...deltas.map((delta) => splitter.push(delta)), splitter.flush()]) {
    reasoning += piece.reasoning;
    text += piece.text;
  }
  return { reasoning, text };
}

describe('createThinkSplitter', () => {
  it('splits an inline think block from the answer, tags cut anywhere between deltas', () => {
    const whole = '<think>\nplan it\n</think>\n\nThe answer.';
    for (let cut = 1; cut < whole.length; cut += 1)
      for (let second = cut + 1; second < whole.length; second += 3)
        expect(split([whole.slice(0, cut), whole.slice(cut, second), whole.slice(second)])).toEqual({
          reasoning: '\nplan it\n',
          text: 'The answer.',
        });
  });

  it('leaves content without a leading think block as the answer, a later <think> included', () => {
    expect(split(['Hello ', '<think>x</think>'])).toEqual({ reasoning: '', text: 'Hello <think>x</think>' });
    expect(split(['<thi', 'nking'])).toEqual({ reasoning: '', text: '<thinking' });
    expect(split(['  '])).toEqual({ reasoning: '', text: '  ' });
  });

  it('keeps a block that never closes as reasoning (a reply cut inside its thinking)', () => {
    expect(split(['<think>still ', 'going </thi'])).toEqual({ reasoning: 'still going </thi', text: '' });
  });
});
