import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Classifier } from '../../src/classify/decision.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Operator rule patterns that backtrack catastrophically on V8 (`(?:ha|haha){1,16}!` took 15.6 s on a
 * 64 KiB prompt of `ha` and stalled /health), loaded into the real app: every one answers within the
 * bound and /health stays responsive meanwhile. Generous bounds for a loaded 2-core machine; RE2 takes
 * milliseconds.
 */
const ROUTE_BOUND_MS = 3000;
const HEALTH_BOUND_MS = 1000;

const PATTERNS = [
  '(?:ha|haha){1,16}!',
  '^(\\w+\\s?)*$',
  '(a+)+b',
  '^(?:a|ab|b)*c',
  '(?:x|x?){1,16}y',
  'prove.*theorem.*qed',
];

const MODERATE: Classifier = {
  classify: () =>
    Promise.resolve({
      tier: 'MODERATE',
      cause: 'learned',
      confidence: 0.8,
      signals: [],
      needsVision: false,
      stageLatencyMs: {},
      llmCalled: false,
    }),
};

function hostileTable(urls: Record<string, string>): RoutingTableInput {
  const table = simpleTable({ urls, group: ['sim'] });
  return {
    ...table,
    deployments: table.deployments.map((deployment) => ({ ...deployment, context_window: 1_000_000 })),
    classifier: {
      mode: 'local',
      rules: PATTERNS.map((pattern, index) => ({
        name: `shape-${index}`,
        pattern,
        match: index % 2 === 0 ? 'last_user' : 'all',
        min_tier: 'EXPERT',
      })),
    },
  };
}

describe('operator rule patterns of backtracking shapes against the real app', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'sim', models: ['sim-model'] }],
      table: hostileTable,
      classifier: () => MODERATE,
    });
  });
  afterAll(() => stack.close());

  const route = (content: string): Promise<Response> =>
    fetch(`${stack.url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content }] }),
    });

  /** Sends /health one after another until `busy` settles; the slowest answer, in ms. */
  async function slowestHealthWhile(busy: Promise<unknown>): Promise<number> {
    let done = false;
    void busy.finally(() => (done = true));
    let slowest = 0;
    do {
      const started = performance.now();
      const health = await fetch(`${stack.url}/health`);
      await health.arrayBuffer();
      expect(health.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
    } while (!done);
    return slowest;
  }

  it.each([
    ['"ha" x 32,768', 'ha'.repeat(32_768)],
    ['"ha" x 32,767 and " !"', `${'ha'.repeat(32_767)} !`],
    ['"a" x 65,535 and "!"', `${'a'.repeat(65_535)}!`],
    ['words and a final "!"', `${'word '.repeat(13_000)}!`],
    ['"x" x 65,535 and "z"', `${'x'.repeat(65_535)}z`],
  ])('answers /v1/route on %s quickly while /health stays responsive', async (_name, content) => {
    const started = performance.now();
    const answer = route(content).then(async (response) => {
      const elapsed = performance.now() - started;
      return { status: response.status, body: (await response.json()) as Record<string, unknown>, elapsed };
    });
    const slowestHealth = await slowestHealthWhile(answer);
    const { status, body, elapsed } = await answer;
    expect(status).toBe(200);
    expect(['MODERATE', 'EXPERT']).toContain(body['tier']);
    expect(elapsed).toBeLessThan(ROUTE_BOUND_MS);
    expect(slowestHealth).toBeLessThan(HEALTH_BOUND_MS);
  });

  it('still raises the tier when a pattern of that shape matches', async () => {
    const response = await route(`${'ha'.repeat(20)}!`);
    expect(((await response.json()) as Record<string, unknown>)['tier']).toBe('EXPERT');
  });
});
