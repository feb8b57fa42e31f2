import { configYamlSchema, validateConfigYaml } from '@continuedev/config-yaml';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startDemo, type DemoStack } from '../helpers/start-demo.js';

/** The Continue `config.yaml` of docs/clients.md: the fenced yaml block after the line that names Continue. */
function documentedContinueConfig(): string {
  const clients = readFileSync('docs/clients.md', 'utf8');
  const match = /Continue \(`~\/\.continue\/config\.yaml`\)[^\n]*\n\n```yaml\n([\s\S]*?)```/.exec(clients);
  if (match?.[1] === undefined) throw new Error('docs/clients.md has no Continue config.yaml block');
  return match[1];
}

interface ContinueModel {
  name: string;
  model: string;
  apiBase?: string;
  roles?: string[];
}

describe("docs/clients.md's Continue config.yaml", () => {
  const text = documentedContinueConfig();
  const config: unknown = parse(text);

  it("is a valid config for Continue's own parser (name, version, schema and every model block)", () => {
    const parsed = configYamlSchema.safeParse(config);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    const errors = validateConfigYaml(configYamlSchema.parse(config)).filter((error) => error.fatal);
    expect(errors).toEqual([]);
    expect(configYamlSchema.parse(config)).toMatchObject({ name: 'autotier', schema: 'v1' });
  });

  it('covers chat, edit, apply, autocomplete and embed', () => {
    const models = configYamlSchema.parse(config).models as ContinueModel[];
    const roles = new Set(models.flatMap((model) => model.roles ?? []));
    for (const role of ['chat', 'edit', 'apply', 'autocomplete', 'embed']) expect(roles).toContain(role);
  });

  describe('each model block against the demo', () => {
    let demo: DemoStack;
    beforeAll(async () => {
      demo = await startDemo();
    }, 60_000);
    afterAll(() => demo.close());

    it('is served at its apiBase with its model name, for the requests its roles make', async () => {
      const models = configYamlSchema.parse(config).models as ContinueModel[];
      for (const block of models) {
        expect(block.apiBase).toBe('http://localhost:4000/v1');
        const client = new OpenAI({ baseURL: `${demo.url}/v1`, apiKey: 'unused', maxRetries: 0 });
        const roles = block.roles ?? ['chat'];
        if (roles.includes('chat')) {
          const answer = await client.chat.completions.create({
            model: block.model,
            messages: [{ role: 'user', content: 'Explain what a closure is in JavaScript.' }],
          });
          expect(answer.choices[0]?.message.content?.length).toBeGreaterThan(0);
        }
        if (roles.includes('autocomplete')) {
          const completion = await client.completions.create({
            model: block.model,
            prompt: 'function add(a, b) {\n  return ',
            suffix: '\n}\n',
            max_tokens: 16,
          });
          expect(completion.choices[0]?.text.length).toBeGreaterThan(0);
        }
        if (roles.includes('embed')) {
          const embedded = await client.embeddings.create({ model: block.model, input: ['const x = 1;'] });
          expect(embedded.data[0]?.embedding.length).toBeGreaterThan(0);
        }
      }
    });
  });
});
