import { describe, expect, it, vi } from 'vitest';
import { createCancelController } from './cancel-signal.js';

describe('the cancel controller', () => {
  it('calls each listener once with the reason set, and ignores a second abort', () => {
    const controller = createCancelController();
    const seen: unknown[] = [];
    controller.signal.addEventListener('abort', () => seen.push(controller.signal.reason));
    expect(controller.signal.aborted).toBe(false);
    const reason = new Error('client left');
    controller.abort(reason);
    controller.abort(new Error('again'));
    expect(controller.signal.aborted).toBe(true);
    expect(seen).toEqual([reason]);
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const controller = createCancelController();
    const removed = vi.fn();
    controller.signal.addEventListener('abort', removed);
    controller.signal.removeEventListener('abort', removed);
    controller.abort();
    const late = vi.fn();
    controller.signal.addEventListener('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
  });

  it('defaults the reason to an AbortError, as AbortController does', () => {
    const controller = createCancelController();
    controller.abort();
    expect((controller.signal.reason as DOMException).name).toBe('AbortError');
  });
});
