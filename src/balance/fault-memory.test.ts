import { describe, expect, it } from 'vitest';
import { createManualTime } from '../../test/helpers/manual-time.js';
import { createFaultMemory, toFingerprint } from './fault-memory.js';

describe('createFaultMemory', () => {
  it('remembers which deployments failed a content, once each, and whether it was answered', () => {
    const memory = createFaultMemory({ clock: createManualTime().clock });
    memory.noteServerError('x', 'a');
    memory.noteServerError('x', 'a');
    memory.noteServerError('x', 'b');
    expect(memory.get('x')).toEqual({ deployments: ['a', 'b'], answered: false });
    memory.noteAnswered('x');
    memory.noteAnswered('never-failed');
    expect(memory.get('x')?.answered).toBe(true);
    expect(memory.get('never-failed')).toBeUndefined();
  });

  it('forgets a content ttlMs after its last failure', async () => {
    const time = createManualTime();
    const memory = createFaultMemory({ clock: time.clock, ttlMs: 1000 });
    memory.noteServerError('x', 'a');
    await time.advance(999);
    expect(memory.get('x')).toBeDefined();
    await time.advance(1);
    expect(memory.get('x')).toBeUndefined();
  });

  it('holds at most capacity contents, dropping the oldest', () => {
    const memory = createFaultMemory({ clock: createManualTime().clock, capacity: 2 });
    for (const content of ['x', 'y', 'z']) memory.noteServerError(content, 'a');
    expect(memory.size()).toBe(2);
    expect(memory.get('x')).toBeUndefined();
    expect(memory.get('z')).toBeDefined();
  });

  it('counts distinct failing contents per deployment until it succeeds', () => {
    const memory = createFaultMemory({ clock: createManualTime().clock });
    memory.noteServerError('x', 'a');
    memory.noteServerError('x', 'a');
    memory.noteServerError('y', 'a');
    expect(memory.failingContents('a')).toBe(2);
    memory.noteSuccess('a');
    expect(memory.failingContents('a')).toBe(0);
  });

  it('fingerprints path and body together', () => {
    expect(toFingerprint('/chat/completions', '{}')).not.toBe(toFingerprint('/completions', '{}'));
    expect(toFingerprint('/chat/completions', '{}')).toBe(toFingerprint('/chat/completions', '{}'));
  });
});
