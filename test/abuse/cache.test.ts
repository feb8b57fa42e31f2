import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import type { ResponderRequest } from '../../sim/index.js';
import { loadShippedClassifier } from '../helpers/shipped-classifier.js';
import { postChat, startStack, type Stack } from '../helpers/start-stack.js';
import { TIER_FLEET_BACKENDS, tierFleetTable } from '../helpers/tier-fleet.js';

const MAX_ENTRIES = 24;
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const KEY_A = bearer('sk-tenant-a');
const KEY_B = bearer('sk-tenant-b');

/**
 * The classifier deployment reads the facts the LLM stage sends and answers from them, as a real
 * classifier would: a long system prompt or a long conversation is COMPLEX, anything else MODERATE.
 */
function verdictFromFacts(request: ResponderRequest): { content: string } {
  const messages = (request.body as { messages: { content: string }[] }).messages;
  const facts = JSON.parse(messages[1]?.content ?? '{}') as Record<string, number>;
  const heavy = (facts['system_prompt_characters'] ?? 0) > 1000 || (facts['conversation_turns'] ?? 0) > 5;
  return {
    content: JSON.stringify({
      complexity: heavy ? 'COMPLEX' : 'MODERATE',
      reason: 'facts',
      needs_vision: false,
    }),
  };
}

const LAST_LINE = 'and the other one?';
const LIGHT = [
  { role: 'user', content: 'Which of these two mugs is cheaper?' },
  { role: 'assistant', content: 'The blue one costs $8.' },
  { role: 'user', content: LAST_LINE },
];
const FUNCTIONS = Array.from(
  { length: 300 },
  (_, index) => `function step${index}(state) {\n  return transform${index}(state, ${index});\n}`,
).join('\n');
const HEAVY_SYSTEM =
  'You are a senior engineer reviewing a large TypeScript codebase for races and leaks. '.repeat(20);
const HEAVY = [
  { role: 'system', content: HEAVY_SYSTEM },
  { role: 'user', content: `Refactor this module so every step is pure:\n\`\`\`js\n${FUNCTIONS}\n\`\`\`` },
  { role: 'assistant', content: 'Step 17 mutates shared state; here is the first part.' },
  { role: 'user', content: LAST_LINE },
];

describe('the classification cache across API keys and conversations', () => {
  let stack: Stack;
  beforeAll(async () => {
    const shipped = await loadShippedClassifier();
    stack = await startStack({
      backends: TIER_FLEET_BACKENDS,
      classifier: (loaded) => shipped.forTable(loaded),
      table: (urls) => ({
        // threshold 1: the local stage is never sure, so every miss asks the classifier deployment
        ...tierFleetTable(urls, {
          mode: 'cascade',
          deployment: 'classifier',
          gate: 'confidence',
          threshold: 1,
          deadline_ms: 3000,
          cache: { max_entries: MAX_ENTRIES, ttl_ms: 600_000 },
        }),
        api_keys: [
          { name: 'tenant-a', sha256: hashKey('sk-tenant-a') },
          { name: 'tenant-b', sha256: hashKey('sk-tenant-b') },
        ],
      }),
    });
    stack.sim('classifier').setResponder(verdictFromFacts);
  });
  afterAll(() => stack.close());
  /** A fresh cache for each case: a reload builds a new classifier. */
  const freshCache = (): void => stack.service.setTable(stack.service.currentTable());

  const route = async (
    messages: readonly unknown[],
    headers: Record<string, string>,
  ): Promise<{ cause: string; complexity: string }> => {
    const response = await fetch(`${stack.url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'auto', messages }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { cause: string; complexity: string };
  };

  it("gives key B its own COMPLEX for a heavy chat ending in the line key A's light chat ended in", async () => {
    freshCache();
    const light = await postChat(stack.url, { model: 'auto', messages: LIGHT }, KEY_A);
    await light.arrayBuffer();
    expect(light.headers.get('x-autotier-complexity')).toBe('MODERATE');
    const heavy = await postChat(stack.url, { model: 'auto', messages: HEAVY }, KEY_B);
    await heavy.arrayBuffer();
    expect(heavy.headers.get('x-autotier-classifier')).toBe('llm');
    expect(heavy.headers.get('x-autotier-complexity')).toBe('COMPLEX');
  });

  it('does not answer one key from its own entry for a conversation that differs before the last line', async () => {
    freshCache();
    expect(await route(LIGHT, KEY_A)).toMatchObject({ cause: 'llm', complexity: 'MODERATE' });
    expect(await route(HEAVY, KEY_A)).toMatchObject({ cause: 'llm', complexity: 'COMPLEX' });
    const longer = [...LIGHT.slice(0, 2), ...LIGHT.slice(0, 2), ...LIGHT];
    expect(await route(longer, KEY_A)).toMatchObject({ cause: 'llm', complexity: 'COMPLEX' });
    const system = [{ role: 'system', content: 'Answer briefly.' }, ...LIGHT];
    expect((await route(system, KEY_A)).cause).toBe('llm');
    expect(await route(LIGHT, KEY_A)).toMatchObject({ cause: 'cache', complexity: 'MODERATE' });
  });

  it("answers /v1/route for another key's text as for a text never sent, in any case and spacing", async () => {
    freshCache();
    const secret = [{ role: 'user', content: 'Our acquisition target is ACME-4471; draft the board memo.' }];
    expect((await route(secret, KEY_A)).cause).toBe('llm');
    expect((await route(secret, KEY_A)).cause).toBe('cache');
    const variants = [
      'Our acquisition target is ACME-4471; draft the board memo.',
      'our acquisition target is acme-4471; draft the board memo.',
      '  OUR   acquisition target is ACME-4471;\n draft the board memo. ',
    ];
    for (const content of variants) {
      const answer = await route([{ role: 'user', content }], KEY_B);
      expect(answer.cause, content).toBe('llm');
    }
    const anonymous = await fetch(`${stack.url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: secret }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("keeps key B's entries while key A floods the cache with more distinct texts than it holds", async () => {
    freshCache();
    const mine = [{ role: 'user', content: 'Summarize the quarterly report for the team.' }];
    expect((await route(mine, KEY_B)).cause).toBe('llm');
    for (let index = 0; index < MAX_ENTRIES * 3; index += 1)
      await route([{ role: 'user', content: `flood question number ${index}` }], KEY_A);
    expect((await route(mine, KEY_B)).cause).toBe('cache');
    const recent = [{ role: 'user', content: `flood question number ${MAX_ENTRIES * 3 - 1}` }];
    expect((await route(recent, KEY_A)).cause).toBe('cache');
  });
});
