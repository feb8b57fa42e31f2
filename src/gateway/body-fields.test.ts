import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../shared/errors.js';
import { checkBodyFields, toAcceptedFields, toOperatorFields, type BodyEndpoint } from './body-fields.js';

/** The installed openai SDK (package.json pins the version the lists below were checked against). */
const openaiRoot = join(process.cwd(), 'node_modules', 'openai');

/** The top-level fields of an interface in the installed openai SDK's type declarations. */
function sdkFields(file: string, name: string): string[] {
  const text = readFileSync(join(openaiRoot, 'resources', file), 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  expect(start, `${name} in ${file}`).toBeGreaterThanOrEqual(0);
  let depth = 0;
  let end = start;
  for (; end < text.length; end += 1) {
    if (text[end] === '{') depth += 1;
    if (text[end] === '}' && --depth === 0) break;
  }
  return [...text.slice(start, end).matchAll(/\n {4}([a-z_]+)\??:/g)].map((match) => match[1] ?? '');
}

function refusal(body: Record<string, unknown>, endpoint: BodyEndpoint, allowed?: string[]): RouterError {
  try {
    checkBodyFields(body, endpoint, allowed);
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('checkBodyFields', () => {
  it("accepts every request field of the installed openai SDK's create params", () => {
    const sdk: [BodyEndpoint, string, string][] = [
      ['chat', 'chat/completions/completions.d.ts', 'ChatCompletionCreateParamsBase'],
      ['completions', 'completions.d.ts', 'CompletionCreateParamsBase'],
      ['responses', 'responses/responses.d.ts', 'ResponseCreateParamsBase'],
      ['embeddings', 'embeddings.d.ts', 'EmbeddingCreateParams'],
    ];
    for (const [endpoint, file, name] of sdk) {
      const fields = sdkFields(file, name);
      expect(fields.length).toBeGreaterThan(3);
      expect(toAcceptedFields(endpoint)).toEqual(expect.arrayContaining(fields));
    }
  });

  it('accepts no operator field on any endpoint', () => {
    for (const endpoint of ['chat', 'completions', 'responses', 'embeddings'] as const)
      for (const field of Object.keys(toOperatorFields()))
        expect(toAcceptedFields(endpoint)).not.toContain(field);
  });

  it('names the operator field with its reason, and an unknown one with the endpoint', () => {
    const priority = refusal({ model: 'auto', priority: -1 }, 'chat');
    expect(priority.status).toBe(400);
    expect(priority.param).toBe('priority');
    expect(priority.message).toMatch(/operator.*priority scheduler/);
    const unknown = refusal({ guided_decoding: {} }, 'completions');
    expect(unknown.param).toBe('guided_decoding');
    expect(unknown.message).toContain('/v1/completions');
  });

  it('accepts best_of on completions only', () => {
    expect(() => checkBodyFields({ best_of: 3 }, 'completions')).not.toThrow();
    for (const endpoint of ['chat', 'responses', 'embeddings'] as const)
      expect(refusal({ best_of: 3 }, endpoint).message).toContain('/v1/completions');
  });

  it('refuses the server-control keys of chat_template_kwargs and keeps the others', () => {
    expect(() => checkBodyFields({ chat_template_kwargs: { enable_thinking: true } }, 'chat')).not.toThrow();
    expect(refusal({ chat_template_kwargs: { tokenize: true } }, 'chat').param).toBe(
      'chat_template_kwargs.tokenize',
    );
  });

  it("lets the table's client_fields through, operator fields included", () => {
    expect(() => checkBodyFields({ x_tag: 1, priority: 1 }, 'chat', ['x_tag', 'priority'])).not.toThrow();
  });

  it('leaves a body that is not an object to the parser', () => {
    for (const body of [null, [], 'text', 3]) expect(() => checkBodyFields(body, 'chat')).not.toThrow();
  });
});
