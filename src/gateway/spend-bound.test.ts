import { describe, expect, it } from 'vitest';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { RouteDecision } from '../routing/decide-route.js';
import { toClientCount, toCompletionSequences, toSpendBound } from './spend-bound.js';

const deployment = (contextWindow: number) => ({ context_window: contextWindow }) as DeploymentConfig;

const decision = (fields: Partial<RouteDecision>): RouteDecision =>
  ({
    promptTokens: 100,
    maxTokens: 1000,
    plan: { group: [deployment(8192)], fallback: [deployment(32_768)] },
    ...fields,
  }) as RouteDecision;

describe('the most a request can spend', () => {
  it('is the prompt plus max_tokens for every sequence', () => {
    expect(toSpendBound(decision({}), 16)).toEqual({ promptTokens: 100, completionTokens: 16_000 });
    expect(toSpendBound(decision({ maxTokens: 0 }), 0)).toEqual({ promptTokens: 100, completionTokens: 0 });
  });

  it('charges a prompt with uncounted parts at the widest window of the plan less max_tokens', () => {
    expect(toSpendBound(decision({ uncountedParts: 1 }), 1)).toEqual({
      promptTokens: 32_768 - 1000,
      completionTokens: 1000,
    });
    // a counted prompt already past that bound keeps its count
    expect(toSpendBound(decision({ uncountedParts: 2, promptTokens: 40_000 }), 1).promptTokens).toBe(40_000);
  });

  it('counts n, or best_of when larger, for every prompt of a legacy completion', () => {
    const prompts = Array.from({ length: 50 }, () => 'def f(');
    expect(toCompletionSequences({ prompt: prompts, n: 16 })).toBe(800);
    expect(toCompletionSequences({ prompt: ['a', 'b'], n: 2, best_of: 5 })).toBe(10);
    expect(toCompletionSequences({ prompt: 'a', best_of: null, n: null })).toBe(1);
  });

  it('reads an unchecked count as a lax server would, else 1', () => {
    expect([16, '16', ' 4 ', 2.5, 0, -3, 'many', null, undefined, Infinity].map(toClientCount)).toEqual([
      16, 16, 4, 3, 1, 1, 1, 1, 1, 1,
    ]);
  });
});
