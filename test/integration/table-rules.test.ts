import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Classifier } from '../../src/classify/decision.js';
import type { TableProblem } from '../../src/config/load-routing-table.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { createTableReloader } from '../../src/config/watch-routing-table.js';
import { postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/** Operator rules through the real app: /v1/route, the response headers, a refused reload. */
const RULES = [
  { name: 'greeting', pattern: '^(?:hi|hello)\\b', flags: 'i', tier: 'SIMPLE', reason: 'a greeting' },
  { name: 'proofs', keywords: ['prove', 'theorem'], min_tier: 'EXPERT' },
];

function rulesTable(urls: Record<string, string>, rules: unknown[] = RULES): RoutingTableInput {
  const table = simpleTable({ urls, group: ['sim'] });
  return { ...table, classifier: { mode: 'local', rules } } as RoutingTableInput;
}

async function explain(url: string, content: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/v1/route`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content }] }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('routing-table rules through the HTTP API', () => {
  let stack: Stack;
  let folder: string;
  let classifierCalls = 0;
  /** Answers MODERATE for everything, so a rule's raise shows; counts its calls. */
  const counting = (): Classifier => ({
    classify: () => {
      classifierCalls += 1;
      return Promise.resolve({
        tier: 'MODERATE',
        cause: 'learned',
        confidence: 0.8,
        signals: [],
        needsVision: false,
        stageLatencyMs: {},
        llmCalled: false,
      });
    },
  });
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-table-rules-'));
    stack = await startStack({
      backends: [{ id: 'sim', models: ['sim-model'], contextWindow: 32768 }],
      table: (urls) => rulesTable(urls),
      classifier: counting,
    });
  });
  afterAll(async () => {
    await stack.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('shows an exact rule in /v1/route and skips the classifier', async () => {
    const before = classifierCalls;
    const decision = await explain(stack.url, 'Hello, how are you?');
    expect(classifierCalls).toBe(before);
    expect(decision).toMatchObject({ complexity: 'SIMPLE', tier: 'SIMPLE', cause: 'rule', confidence: null });
    expect(decision['rules']).toEqual([
      { rule: 'rule', name: 'greeting', from: 'auto', to: 'SIMPLE', reason: 'a greeting' },
    ]);
  });

  it('raises a classified request to a min_tier rule and says so in the headers', async () => {
    const before = classifierCalls;
    const response = await postChat(stack.url, {
      model: 'auto',
      messages: [{ role: 'user', content: 'Can you prove that the sum of two even numbers is even?' }],
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(classifierCalls).toBe(before + 1);
    expect(response.headers.get('x-autotier-tier')).toBe('EXPERT');
    expect(response.headers.get('x-autotier-classifier')).toBe('learned');
    expect(response.headers.get('x-autotier-complexity')).toBe('MODERATE');
    expect(response.headers.get('x-autotier-reason')).toBe('learned:MODERATE, rule[proofs]:MODERATE->EXPERT');
  });

  it('answers an exact-rule chat with the rule as the classifier in the headers', async () => {
    const response = await postChat(stack.url, {
      model: 'auto',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(response.headers.get('x-autotier-classifier')).toBe('rule');
    expect(response.headers.get('x-autotier-complexity')).toBe('SIMPLE');
    expect(response.headers.get('x-autotier-reason')).toBe('rule:SIMPLE, rule[greeting]:auto->SIMPLE');
  });

  it('refuses a reload with a pattern RE2 cannot run, naming the key path, and keeps the old rules', async () => {
    const path = join(folder, 'table.yaml');
    const urls = { sim: stack.sim('sim').baseUrl };
    const rejected: TableProblem[][] = [];
    const reloader = createTableReloader({
      path,
      clock: { now: () => Date.now() },
      current: () => stack.service.currentTable(),
      onLoad: (table) => stack.service.setTable(table),
      onReject: (rejection) => rejected.push([...rejection.problems]),
      debounceMs: 20,
    });
    try {
      const bad = [...RULES, { name: 'lookbehind', pattern: '(?<!not )urgent', tier: 'EXPERT' }];
      await writeFile(`${path}.tmp`, stringify(rulesTable(urls, bad)));
      await rename(`${path}.tmp`, path);
      expect(await reloader.reload()).toBe(false);
      expect(rejected.flat()).toContainEqual({
        path: 'classifier.rules.2.pattern',
        message: expect.stringContaining('lookaround has no linear-time engine') as unknown,
      });
      expect((await explain(stack.url, 'hi'))['rules']).toEqual([
        expect.objectContaining({ name: 'greeting' }),
      ]);
    } finally {
      reloader.close();
    }
  });
});
