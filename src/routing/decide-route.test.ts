import { describe, expect, it } from 'vitest';
import type { ClassificationDecision, Classifier } from '../classify/decision.js';
import { compileTableRules } from '../classify/table-rules.js';
import type { RoutingTableInput } from '../config/routing-table-schema.js';
import { parseRoutingTable } from '../config/load-routing-table.js';
import { createAvailabilityChecker } from '../policy/availability.js';
import type { PromptCount, TokenCounter } from '../policy/token-counter.js';
import { createManualClock } from '../shared/clock.js';
import { createCancelController } from '../shared/cancel-signal.js';
import type { Tier } from '../shared/tier.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import { decideRoute, type DecideInput, type RouteDecision } from './decide-route.js';
import { toReasonHeader } from './route-headers.js';

const deployment = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  model: id,
  base_url: `http://127.0.0.1:1/${id}/v1`,
  context_window: 32_768,
  ...extra,
});

function loadTable(rules: unknown[]) {
  const input = {
    deployments: [
      deployment('small', { context_window: 4096 }),
      deployment('medium'),
      deployment('large'),
      deployment('huge'),
    ],
    tiers: {
      SIMPLE: { group: ['small'], max_tokens: { cap: 512, default: 256 } },
      MODERATE: { group: ['medium'], max_tokens: { cap: 512, default: 256 } },
      COMPLEX: { group: ['large'], max_tokens: { cap: 512, default: 256 } },
      EXPERT: { group: ['huge'], max_tokens: { cap: 512, default: 256 } },
    },
    classifier: { mode: 'local', rules },
  } as RoutingTableInput;
  return parseRoutingTable({ text: JSON.stringify(input), source: '<test>', now: 0 }).table;
}

/** A classifier that answers `tier` and counts its calls. */
function fixedClassifier(tier: Tier): Classifier & { calls: number } {
  const classifier = {
    calls: 0,
    classify(): Promise<ClassificationDecision> {
      classifier.calls += 1;
      return Promise.resolve({
        tier,
        cause: 'learned',
        confidence: 0.9,
        signals: [],
        needsVision: false,
        stageLatencyMs: {},
        llmCalled: false,
      });
    },
  };
  return classifier;
}

/** Counts by characters: the context-length rule is decided by the prompt's length alone. */
const tokenCounter: TokenCounter = {
  countChat: (request) => {
    const chars = request.messages.reduce((sum, message) => sum + JSON.stringify(message.content).length, 0);
    const count: PromptCount = { byTokenizer: new Map(), tokens: chars, estimated: false };
    return Promise.resolve(count);
  },
  countText: () => Promise.reject(new Error('not used')),
  countTexts: () => Promise.reject(new Error('not used')),
  prepare: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

const RULES = [
  { name: 'greeting', pattern: '^(?:hi|hello)\\b', flags: 'i', tier: 'SIMPLE', reason: 'a greeting' },
  { name: 'proofs', keywords: ['prove', 'theorem'], min_tier: 'COMPLEX' },
  { name: 'research', keywords: ['research'], min_tier: 'EXPERT' },
  { name: 'hello-expert', pattern: 'hello', tier: 'EXPERT' },
];

function decide(
  content: string,
  options: { classified?: Tier; extra?: Partial<DecideInput>; model?: string } = {},
): Promise<RouteDecision & { classifierCalls: () => number }> {
  const table = loadTable(RULES);
  const classifier = fixedClassifier(options.classified ?? 'MODERATE');
  const clock = createManualClock(0);
  return decideRoute({
    table,
    classifier,
    tableRules: compileTableRules(table.classifier.rules),
    tokenCounter,
    checker: createAvailabilityChecker(),
    store: createMemoryStateStore({ clock }),
    now: 0,
    request: { model: options.model ?? 'auto', messages: [{ role: 'user', content }], maxTokens: undefined },
    hints: {},
    signal: createCancelController().signal,
    ...options.extra,
  }).then((decision) => Object.assign(decision, { classifierCalls: () => classifier.calls }));
}

describe('decideRoute with routing-table rules', () => {
  it('sets the tier of an exact rule without calling the classifier', async () => {
    const decision = await decide('hi, what time is it?', { classified: 'EXPERT' });
    expect(decision.classifierCalls()).toBe(0);
    expect(decision).toMatchObject({ complexity: 'SIMPLE', cause: 'rule', classification: undefined });
    expect(decision.plan.tier).toBe('SIMPLE');
    expect(decision.rules).toEqual([
      { rule: 'rule', name: 'greeting', from: 'auto', to: 'SIMPLE', reason: 'a greeting' },
    ]);
    expect(toReasonHeader(decision)).toBe('rule:SIMPLE, rule[greeting]:auto->SIMPLE');
  });

  it('lets the first exact rule in table order win over a later one', async () => {
    const decision = await decide('hello there');
    expect(decision.plan.tier).toBe('SIMPLE');
    expect(decision.rules.map((rule) => `${rule.name}:${rule.from}->${rule.to}`)).toEqual([
      'greeting:auto->SIMPLE',
      'hello-expert:SIMPLE->SIMPLE',
    ]);
  });

  it('classifies, then raises to the highest matching min_tier', async () => {
    const decision = await decide('please prove this theorem for my research', { classified: 'SIMPLE' });
    expect(decision.classifierCalls()).toBe(1);
    expect(decision).toMatchObject({ complexity: 'SIMPLE', cause: 'learned' });
    expect(decision.plan.tier).toBe('EXPERT');
    expect(decision.rules.map((rule) => `${rule.name}:${rule.from}->${rule.to}`)).toEqual([
      'research:SIMPLE->EXPERT',
      'proofs:EXPERT->EXPERT',
    ]);
    expect(toReasonHeader(decision)).toBe(
      'learned:SIMPLE, rule[research]:SIMPLE->EXPERT, rule[proofs]:EXPERT->EXPERT',
    );
  });

  it('applies an exact rule, then a higher min_tier that also matched', async () => {
    const decision = await decide('hi! prove that 2 is prime');
    expect(decision.classifierCalls()).toBe(0);
    expect(decision.plan.tier).toBe('COMPLEX');
    expect(decision.complexity).toBe('SIMPLE');
  });

  it('keeps the hard rules after an exact rule: context length moves it up', async () => {
    const decision = await decide(`hi ${'lorem ipsum '.repeat(400)}`);
    expect(decision.plan.tier).toBe('MODERATE');
    expect(decision.rules.map((rule) => rule.rule)).toEqual(['rule', 'context_length']);
  });

  it('keeps the hard rules after an exact rule: x-autotier-min-tier and the key’s tiers', async () => {
    const raised = await decide('hi', { extra: { hints: { minTier: 'MODERATE' } } });
    expect(raised.plan.tier).toBe('MODERATE');
    expect(raised.rules.map((rule) => rule.rule)).toEqual(['rule', 'min_tier']);
    const capped = await decide('prove it', {
      classified: 'SIMPLE',
      extra: { allowed: { keyName: 'cheap', tiers: ['SIMPLE', 'MODERATE'], models: undefined } },
    });
    expect(capped.plan.tier).toBe('MODERATE');
    expect(capped.rules.map((rule) => `${rule.rule}:${rule.from}->${rule.to}`)).toEqual([
      'rule:SIMPLE->COMPLEX',
      'key_tier_cap:COMPLEX->MODERATE',
    ]);
  });

  it('keeps the hard rules after an exact rule: the session ladder', async () => {
    const store = createMemoryStateStore({ clock: createManualClock(0) });
    await store.raiseSessionTier({ key: 'session-1', rank: 3, ttlMs: 60_000 });
    const decision = await decide('hello', { extra: { store, hints: { sessionKey: 'session-1' } } });
    expect(decision.plan.tier).toBe('EXPERT');
    expect(decision.rules.map((rule) => `${rule.rule}:${rule.from}->${rule.to}`)).toEqual([
      'rule:auto->SIMPLE',
      'rule:SIMPLE->SIMPLE',
      'session:SIMPLE->EXPERT',
    ]);
  });

  it('applies no rule to a tier alias or a named model', async () => {
    const alias = await decide('hi', { model: 'tier:EXPERT' });
    expect(alias.plan.tier).toBe('EXPERT');
    expect(alias.rules.map((rule) => rule.rule)).toEqual(['override']);
    const named = await decide('prove it', { model: 'small' });
    expect(named.plan.tier).toBe('SIMPLE');
  });

  it('changes nothing when no rule matches', async () => {
    const decision = await decide('write a haiku', { classified: 'MODERATE' });
    expect(decision).toMatchObject({ complexity: 'MODERATE', cause: 'learned', rules: [] });
  });
});
