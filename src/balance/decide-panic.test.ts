import { describe, expect, it } from 'vitest';
import { decidePanic } from './decide-panic.js';

describe('decidePanic', () => {
  it('picks the deployment whose cooldown ends soonest', () => {
    expect(
      decidePanic([
        { id: 'a', until: 3000 },
        { id: 'b', until: 1000 },
        { id: 'c', until: 2000 },
      ]),
    ).toBe('b');
  });

  it('prefers one whose cooldown was already lifted, and keeps the chain order on ties', () => {
    expect(
      decidePanic([
        { id: 'a', until: 1000 },
        { id: 'b', until: undefined },
      ]),
    ).toBe('b');
    expect(
      decidePanic([
        { id: 'a', until: 1000 },
        { id: 'b', until: 1000 },
      ]),
    ).toBe('a');
  });

  it('picks nothing when nothing cools down', () => {
    expect(decidePanic([])).toBeUndefined();
  });
});
