import { describe, expect, it } from 'vitest';
import { parseTableInput, toTableRejection } from '../../test/helpers/table-input.js';
import { findMixedGroups } from './load-routing-table.js';

const chat = { id: 'chat', model: 'Qwen/Qwen3-8B', base_url: 'http://127.0.0.1:1/v1', context_window: 32768 };
const embedding = (id: string, model = 'BAAI/bge-m3') => ({
  id,
  kind: 'embedding',
  model,
  base_url: 'http://127.0.0.1:2/v1',
  context_window: 8192,
});
const tier = { group: ['chat'] };
const table = (extra: Record<string, unknown>) => ({
  deployments: [chat, embedding('bge')],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
  ...extra,
});

describe('the embeddings group of the routing table', () => {
  it('takes a group of embedding deployments with the documented defaults', () => {
    const { table: parsed } = parseTableInput(table({ embeddings: { group: ['bge'] } }));
    expect(parsed.embeddings).toEqual({
      group: ['bge'],
      strategy: 'weighted',
      fallback: [],
      timeouts: { connect_ms: 10_000, ttft_ms: 30_000, idle_ms: 10_000, total_ms: 60_000 },
      retry_in_place: { transient_retries: 1, jitter_ms: 250, retry_after_cap_ms: 5000 },
      extra_body: {},
    });
    expect(parsed.deployments.map((deployment) => deployment.kind)).toEqual(['chat', 'embedding']);
  });

  it('is optional', () => {
    expect(parseTableInput(table({})).table.embeddings).toBeUndefined();
  });

  it('rejects unknown keys, unknown ids and chat deployments with their path', () => {
    expect(toTableRejection(table({ embeddings: { group: ['bge'], dims: 3 } }))).toContain('embeddings');
    expect(toTableRejection(table({ embeddings: { group: ['bge'], dims: 3 } }))).toContain('dims');
    expect(toTableRejection(table({ embeddings: { group: ['nope'] } }))).toContain(
      'embeddings.group.0: unknown deployment id "nope"',
    );
    expect(toTableRejection(table({ embeddings: { group: ['bge'], fallback: ['chat'] } }))).toContain(
      'embeddings.fallback.0: "chat" is not an embedding deployment (kind: embedding)',
    );
    expect(toTableRejection(table({ embeddings: { group: [] } }))).toContain('embeddings.group');
  });

  it('keeps embedding deployments out of tiers, the classifier and chat probes', () => {
    const inTier = table({
      tiers: { SIMPLE: { group: ['bge'] }, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    });
    expect(toTableRejection(inTier)).toContain(
      'tiers.SIMPLE.group.0: "bge" is an embedding deployment: only the embeddings group may use it',
    );
    expect(toTableRejection(table({ classifier: { mode: 'cascade', deployment: 'bge' } }))).toContain(
      'classifier.deployment: "bge" is an embedding deployment',
    );
    const probed = table({ deployments: [chat, { ...embedding('bge'), health_probe: 'chat' }] });
    expect(toTableRejection(probed)).toContain('deployments.1.health_probe');
    expect(
      toTableRejection(table({ deployments: [chat, { ...embedding('bge'), kind: 'rerank' }] })),
    ).toContain('deployments.1.kind');
  });

  it('warns when the group and fallback serve different models', () => {
    const mixed = parseTableInput(
      table({
        deployments: [chat, embedding('bge'), embedding('qwen', 'Qwen/Qwen3-Embedding-0.6B')],
        embeddings: { group: ['bge'], fallback: ['qwen'] },
      }),
    ).table;
    expect(findMixedGroups(mixed)).toEqual([expect.stringContaining('embeddings mixes models') as string]);
  });
});
