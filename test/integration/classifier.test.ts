import { loadShippedClassifier } from '../helpers/shipped-classifier.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponderRequest } from '../../sim/index.js';
import { postChat, startStack, type Stack } from '../helpers/start-stack.js';
import { TIER_FLEET_BACKENDS, tierFleetTable } from '../helpers/tier-fleet.js';

const verdict = (complexity: string): string =>
  JSON.stringify({ complexity, reason: 'scripted', needs_vision: false });

/** What the classifier server saw last: the request body the autotier LLM stage sent. */
let lastClassifierBody: Record<string, unknown> = {};

describe('auto requests through the classifier cascade', () => {
  let stack: Stack;
  beforeAll(async () => {
    const shipped = await loadShippedClassifier();
    stack = await startStack({
      backends: TIER_FLEET_BACKENDS,
      classifier: (loaded) => shipped.forTable(loaded),
      table: (urls) =>
        // gate confidence at threshold 1: the learned model is never sure, so every auto request asks the LLM
        tierFleetTable(urls, {
          mode: 'cascade',
          deployment: 'classifier',
          gate: 'confidence',
          threshold: 1,
          deadline_ms: 400,
          circuit_breaker: { failures: 3, open_ms: 60_000 },
          cache: { max_entries: 0 },
        }),
    });
  });
  afterAll(() => stack.close());

  const scripted = (
    reply: (request: ResponderRequest) => { content?: string; delayMs?: number; status?: number },
  ) =>
    stack.sim('classifier').setResponder((request) => {
      lastClassifierBody = request.body as Record<string, unknown>;
      return reply(request);
    });
  const ask = (text: string) =>
    postChat(stack.url, { model: 'auto', messages: [{ role: 'user', content: text }] });

  it("routes by the LLM's verdict, cause llm, and sends the rubric prompt, JSON schema and no thinking", async () => {
    scripted(() => ({ content: verdict('EXPERT') }));
    const response = await ask('please summarize this {"quoted": "braces"} text');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-classifier')).toBe('llm');
    expect(response.headers.get('x-autotier-tier')).toBe('EXPERT');
    expect(lastClassifierBody).toMatchObject({
      model: 'classifier',
      temperature: 0,
      chat_template_kwargs: { enable_thinking: false },
      response_format: { type: 'json_schema' },
    });
    const messages = lastClassifierBody['messages'] as { role: string; content: string }[];
    expect(messages[0]?.content).toContain('EXPERT (huge)');
    expect(JSON.parse(messages[1]?.content ?? '{}')).toMatchObject({
      last_user_message: 'please summarize this {"quoted": "braces"} text',
    });
  });

  it('reads a verdict wrapped in a <think> block and a code fence', async () => {
    scripted(() => ({ content: `<think>hmm</think>\n\`\`\`json\n${verdict('COMPLEX')}\n\`\`\`` }));
    const response = await ask('write a function that parses dates');
    expect(response.headers.get('x-autotier-classifier')).toBe('llm');
    expect(response.headers.get('x-autotier-complexity')).toMatch(/COMPLEX|EXPERT/);
  });

  it('falls back to the local decision on a malformed reply', async () => {
    scripted(() => ({ content: 'I think it is hard.' }));
    const response = await ask('what is the capital of France?');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-classifier')).toBe('fallback');
  });

  it('falls back when the classifier answers 500', async () => {
    scripted(() => ({ status: 500 }));
    const response = await ask('translate good morning into German');
    expect(response.headers.get('x-autotier-classifier')).toBe('fallback');
  });

  it('adds at most the deadline when the classifier never answers in time', async () => {
    stack.service.setTable(stack.service.currentTable());
    scripted(() => ({ content: verdict('SIMPLE'), delayMs: 5000 }));
    const started = Date.now();
    const response = await ask('tell me about the rivers of europe');
    const elapsed = Date.now() - started;
    expect(response.headers.get('x-autotier-classifier')).toBe('fallback');
    expect(elapsed).toBeLessThan(400 + 600);
  });

  it('skips the LLM once the circuit breaker opens', async () => {
    stack.service.setTable(stack.service.currentTable());
    scripted(() => ({ status: 500 }));
    for (let index = 0; index < 3; index += 1) await ask(`question number ${index}`);
    const before = stack.sim('classifier').stats().chatRequests;
    const response = await ask('one more question');
    expect(response.headers.get('x-autotier-classifier')).toBe('fallback');
    expect(stack.sim('classifier').stats().chatRequests).toBe(before);
  });
});
