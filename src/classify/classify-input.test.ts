import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUT_LIMITS, toClassifyInput, toExaminedText } from './classify-input.js';

const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };

describe('toClassifyInput', () => {
  it('classifies the last user message, not the system prompt or earlier turns', () => {
    const input = toClassifyInput({
      messages: [
        { role: 'system', content: 'You are a Lean 4 proof assistant.' },
        { role: 'user', content: 'Prove the theorem' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Thanks!' },
      ],
    });
    expect(input.text).toBe('Thanks!');
    expect(input.lowerText).toBe('thanks!');
    expect(input.turns).toBe(3);
    expect(input.systemText).toBe('you are a lean 4 proof assistant.');
    expect(input.conversationLength).toBe('Prove the theorem'.length + 'Done.'.length + 'Thanks!'.length);
  });

  it('joins text parts and counts image parts, which set needsVision', () => {
    const input = toClassifyInput({
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'what is' }, image, { type: 'text', text: 'in this picture?' }],
        },
      ],
    });
    expect(input.text).toBe('what is\nin this picture?');
    expect(input.imageCount).toBe(1);
    expect(input.needsVision).toBe(true);
  });

  it('needs no vision for text-only requests', () => {
    const input = toClassifyInput({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(input.needsVision).toBe(false);
    expect(input.imageCount).toBe(0);
  });

  it('examines only the head and tail of a huge message but keeps its full length', () => {
    const huge = `START ${'x'.repeat(400_000)} END`;
    const input = toClassifyInput({ messages: [{ role: 'user', content: huge }] });
    expect(input.textLength).toBe(huge.length);
    expect(input.text.length).toBeLessThanOrEqual(
      DEFAULT_INPUT_LIMITS.headChars + DEFAULT_INPUT_LIMITS.tailChars + 2,
    );
    expect(input.text.startsWith('START')).toBe(true);
    expect(input.text.endsWith('END')).toBe(true);
  });

  it('keeps short texts whole', () => {
    expect(toExaminedText('short', DEFAULT_INPUT_LIMITS)).toBe('short');
  });

  it('notices code in the turns just before the last one, and tools', () => {
    const input = toClassifyInput({
      messages: [
        { role: 'user', content: 'def f(x):\n    return x' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'now make it faster' },
      ],
      tools: [{ type: 'function', function: { name: 'run' } }],
    });
    expect(input.recentCode).toBe(true);
    expect(input.hasTools).toBe(true);
    expect(toClassifyInput({ messages: [{ role: 'user', content: 'now make it faster' }] }).recentCode).toBe(
      false,
    );
  });

  it('falls back to the last message when there is no user message', () => {
    expect(toClassifyInput({ messages: [{ role: 'assistant', content: 'hello' }] }).text).toBe('hello');
    expect(toClassifyInput({ messages: [] }).text).toBe('');
  });
});
