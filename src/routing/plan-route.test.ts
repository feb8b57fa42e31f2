import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRoutingTable } from '../config/load-routing-table.js';
import { RouterError } from '../shared/errors.js';
import { planRoute } from './plan-route.js';

const deployment = (id: string, context_window: number, vision = false) => ({
  id,
  model: id,
  base_url: `http://127.0.0.1:1/${id}/v1`,
  context_window,
  vision,
});
const tier = (group: string[], fallback: string[] = []) => ({
  group,
  fallback,
  max_tokens: { cap: 4000, default: 1000 },
});
const { table } = parseRoutingTable({
  source: 'test',
  now: 0,
  text: stringify({
    deployments: [
      deployment('small', 8000),
      deployment('mid', 16_000),
      deployment('big', 32_000),
      deployment('huge', 128_000),
      deployment('eyes', 32_000, true),
    ],
    tiers: {
      SIMPLE: tier(['small'], ['mid']),
      MODERATE: tier(['mid']),
      COMPLEX: tier(['big'], ['mid']),
      EXPERT: tier(['huge'], ['big']),
      VISION: tier(['eyes']),
    },
  }),
});

const base = {
  table,
  tier: 'SIMPLE' as const,
  promptTokens: 100,
  requestedMaxTokens: undefined,
  needsVision: false,
};

describe('planRoute', () => {
  it('keeps the classified tier when the prompt fits', () => {
    const planned = planRoute(base);
    expect(planned.plan.tier).toBe('SIMPLE');
    expect(planned.plan.group.map((member) => member.id)).toEqual(['small']);
    expect(planned.plan.fallback.map((member) => member.id)).toEqual(['mid']);
    expect(planned.rules).toEqual([]);
  });

  it('fits exactly: prompt + max_tokens equal to the window stays', () => {
    expect(planRoute({ ...base, promptTokens: 7000 }).plan.tier).toBe('SIMPLE');
  });

  it('moves up one tier when prompt + default max_tokens is one token over', () => {
    const planned = planRoute({ ...base, promptTokens: 7001 });
    expect(planned.plan.tier).toBe('MODERATE');
    expect(planned.plan.group.map((member) => member.id)).toEqual(['mid']);
  });

  it('moves up to the lowest tier whose deployments fit and says why', () => {
    const planned = planRoute({ ...base, promptTokens: 20_000 });
    expect(planned.plan.tier).toBe('COMPLEX');
    expect(planned.rules).toEqual([
      {
        rule: 'context_length',
        from: 'SIMPLE',
        to: 'MODERATE',
        reason: 'needs 21000 tokens, largest window here is 8000',
      },
      {
        rule: 'context_length',
        from: 'MODERATE',
        to: 'COMPLEX',
        reason: 'needs 21000 tokens, largest window here is 16000',
      },
    ]);
  });

  it('counts the client max_tokens, capped by the tier', () => {
    expect(planRoute({ ...base, promptTokens: 5000, requestedMaxTokens: 100_000 }).maxTokens).toBe(4000);
    expect(planRoute({ ...base, promptTokens: 5000, requestedMaxTokens: 100_000 }).plan.tier).toBe(
      'MODERATE',
    );
  });

  it('answers context_length_exceeded with the numbers when nothing fits', () => {
    try {
      planRoute({ ...base, promptTokens: 200_000 });
      throw new Error('expected a rejection');
    } catch (error) {
      expect(error).toBeInstanceOf(RouterError);
      expect((error as RouterError).code).toBe('CONTEXT_LENGTH_EXCEEDED');
      expect((error as RouterError).message).toContain(
        '201000 tokens exceed the largest context window of 128000',
      );
    }
  });

  it('sends images to the lowest vision-capable tier at or above the classified one', () => {
    const planned = planRoute({ ...base, needsVision: true });
    expect(planned.plan.tier).toBe('VISION');
    expect(planned.plan.group.map((member) => member.id)).toEqual(['eyes']);
    expect(planned.rules.map((rule) => rule.rule)).toEqual(['vision', 'vision', 'vision', 'vision']);
  });

  it('answers no_vision_deployment when no tier can see', () => {
    const blind = { ...table, tiers: { ...table.tiers, VISION: undefined } };
    expect(() => planRoute({ ...base, table: blind, needsVision: true })).toThrow(
      expect.objectContaining({ code: 'NO_VISION_DEPLOYMENT' }) as Error,
    );
  });

  it('leaves out unavailable deployments so the fallback chain takes over', () => {
    const planned = planRoute({
      ...base,
      tier: 'COMPLEX',
      unavailable: new Map([['big', 'is outside its availability window']]),
    });
    expect(planned.plan.tier).toBe('COMPLEX');
    expect(planned.plan.group).toEqual([]);
    expect(planned.plan.fallback.map((member) => member.id)).toEqual(['mid']);
    expect(planned.rules[0]).toMatchObject({ rule: 'availability', from: 'COMPLEX', to: 'COMPLEX' });
  });

  it("checks each deployment's window with the prompt counted by that deployment's tokenizer", () => {
    // 'small' counts the prompt as 6,000 tokens and fits; 'mid' (its fallback) counts 20,000 and does not
    const promptTokensOf = (deployment: { id: string }): number =>
      deployment.id === 'small' ? 6000 : 20_000;
    const planned = planRoute({ ...base, promptTokens: 20_000, promptTokensOf });
    expect(planned.plan.tier).toBe('SIMPLE');
    expect(planned.plan.group.map((member) => member.id)).toEqual(['small']);
    expect(planned.plan.fallback).toEqual([]);
  });
});
