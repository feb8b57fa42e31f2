import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { createTableReloader, type TableRejection } from '../../src/config/watch-routing-table.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { toHostileText, type HostileKind } from '../helpers/hostile-texts.js';
import type { TokenCounter } from '../../src/policy/token-counter.js';
import {
  FAST_TIMEOUTS,
  HELLO,
  postChat,
  sharedTokenCounter,
  startStack,
  type Stack,
} from '../helpers/start-stack.js';

/**
 * Stalls: hostile prompts and tables never hold the event loop. The server runs in this
 * process, so a /health request answered while the hostile one is handled proves the loop turned;
 * the bounds are two orders of magnitude under the 30-38 s stalls these inputs caused without bounds.
 */
const HEALTH_BOUND_MS = 1000;

/** Sends `probe` every 20 ms while `work` runs; resolves to the slowest /health answer, in ms. */
async function slowestHealthDuring(url: string, work: Promise<unknown>): Promise<number> {
  let done = false;
  let slowest = 0;
  const probes = (async () => {
    while (!done) {
      const started = performance.now();
      await (await fetch(`${url}/health`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await work.finally(() => (done = true));
  await probes;
  return slowest;
}

const route = (url: string, content: string): Promise<Response> =>
  fetch(`${url}/v1/route`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content }] }),
  });

describe('hostile prompts do not stall the router', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'qwen', models: ['Qwen/Qwen3-8B'] },
        { id: 'other', models: ['other-model'] },
      ],
      classifier: () => createLocalClassifier({ mode: 'heuristic' }),
      table: (urls) => {
        const tier = { group: ['qwen'], fallback: ['other'], timeouts: FAST_TIMEOUTS };
        return {
          deployments: [
            // two tokenizers: both counts run for every prompt near a window
            { id: 'qwen', model: 'Qwen/Qwen3-8B', base_url: urls['qwen'] ?? '', context_window: 32768 },
            { id: 'other', model: 'other-model', base_url: urls['other'] ?? '', context_window: 131072 },
          ],
          tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('routes 30-40 kB unsplit runs while /health keeps answering', async () => {
    const kinds: HostileKind[] = ['repeated', 'dna', 'base64', 'minified-js', 'url', 'cjk', 'digits'];
    const work = (async () => {
      for (const kind of kinds)
        for (const length of [30_000, 40_000]) {
          const response = await route(stack.url, toHostileText(kind, length, 3));
          // 40k CJK characters fit no group's window: a decision too
          if (response.status !== 200)
            expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
              'context_length_exceeded',
            );
          else await response.arrayBuffer();
        }
      // past the byte bound, so counted exactly: Qwen3 has no token longer than "zz" in a run of z
      const zs = (await (await route(stack.url, 'z'.repeat(40_000))).json()) as {
        prompt_tokens: number;
        prompt_tokens_estimated: boolean;
      };
      expect(zs.prompt_tokens_estimated).toBe(false);
      expect(zs.prompt_tokens).toBeGreaterThanOrEqual(20_000);
    })();
    expect(await slowestHealthDuring(stack.url, work)).toBeLessThan(HEALTH_BOUND_MS);
  });

  it('answers 1 MB hostile bodies with context_length_exceeded while /health keeps answering', async () => {
    const kinds: HostileKind[] = ['repeated', 'base64', 'dna', 'cjk', 'minified-js'];
    const work = (async () => {
      for (const kind of kinds) {
        const content = toHostileText(kind, kind === 'cjk' ? 333_333 : 1_000_000, 5);
        const response = await postChat(stack.url, { model: 'auto', messages: [{ role: 'user', content }] });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
          'context_length_exceeded',
        );
      }
    })();
    expect(await slowestHealthDuring(stack.url, work)).toBeLessThan(HEALTH_BOUND_MS);
  });
});

describe('work stops when the client goes away', () => {
  let stack: Stack;
  /** Resolves when the service starts counting; `outcome` is how the count ended. */
  let counting: Promise<void>;
  let outcome: string | undefined;
  beforeAll(async () => {
    let started = (): void => undefined;
    counting = new Promise((resolve) => (started = resolve));
    const inner = sharedTokenCounter();
    const tokenCounter: TokenCounter = {
      ...inner,
      countChat: (request, options) => {
        started();
        return inner.countChat(request, options).then(
          (count) => ((outcome = 'counted'), count),
          (error: unknown) => {
            outcome = (error as { code?: string }).code;
            throw error;
          },
        );
      },
    };
    stack = await startStack({
      backends: [{ id: 'wide', models: ['Qwen/Qwen3-8B'] }],
      tokenCounter,
      table: (urls) => {
        const tier = { group: ['wide'], timeouts: FAST_TIMEOUTS };
        return {
          // 16 MB of bytes may not fit 10M tokens, so the prompt is counted; its ~6M tokens do fit, so
          // the count runs to the end of the text, which takes seconds
          deployments: [
            { id: 'wide', model: 'Qwen/Qwen3-8B', base_url: urls['wide'] ?? '', context_window: 10_000_000 },
          ],
          tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('stops counting a 16 MB prompt once its client disconnects, and sends nothing upstream', async () => {
    const controller = new AbortController();
    const content = toHostileText('dna', 16_000_000, 7);
    const sent = fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tier:SIMPLE', messages: [{ role: 'user', content }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    await counting;
    controller.abort();
    await sent;
    await expect.poll(() => outcome, { timeout: 20_000 }).toBe('CLIENT_CLOSED');
    expect(stack.sim('wide').stats().requests).toBe(0);
  });
});

describe('a large routing table does not stall the router', () => {
  let stack: Stack;
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-big-table-'));
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      classifier: () => createLocalClassifier({ mode: 'heuristic' }),
      table: (urls) => {
        const tier = { group: ['a'], timeouts: FAST_TIMEOUTS };
        return {
          deployments: [{ id: 'a', model: 'sim-model', base_url: urls['a'] ?? '', context_window: 32768 }],
          tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        };
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('loads a table near the 1 MiB limit off the event loop, and refuses a 50 MB one while the old serves', async () => {
    const path = join(folder, 'table.yaml');
    const rejected: TableRejection[] = [];
    const reloader = createTableReloader({
      path,
      clock: { now: () => Date.now() },
      current: () => stack.service.currentTable(),
      onLoad: (table) => stack.service.setTable(table),
      onReject: (rejection) => rejected.push(rejection),
      debounceMs: 10_000,
    });
    try {
      const base = stack.service.currentTable().table;
      const keys = Array.from({ length: 6000 }, (_, index) => ({
        name: `key-${index}`,
        sha256: hashKey(`secret-${index}`),
        tiers: ['SIMPLE', 'MODERATE'],
      }));
      const big = stringify({ deployments: base.deployments, tiers: base.tiers, api_keys: keys });
      expect(big.length).toBeGreaterThan(800_000);
      await writeFile(path, big);
      const slowest = await slowestHealthDuring(
        stack.url,
        reloader.reload().then((ok) => expect(ok).toBe(true)),
      );
      expect(slowest).toBeLessThan(HEALTH_BOUND_MS);
      expect(stack.service.currentTable().table.api_keys).toHaveLength(6000);

      await writeFile(path, `# ${'x'.repeat(50 * 1024 * 1024)}\n`);
      expect(await reloader.reload()).toBe(false);
      expect(rejected.at(-1)?.message).toContain('the limit is 1048576 bytes');
      const stillKeyed = await postChat(
        stack.url,
        { model: 'tier:SIMPLE', messages: HELLO },
        {
          authorization: 'Bearer secret-7',
        },
      );
      expect(stillKeyed.status).toBe(200);
    } finally {
      reloader.close();
    }
  });
});
