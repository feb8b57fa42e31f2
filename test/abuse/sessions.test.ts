import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { systemClock } from '../../src/shared/clock.js';
import { createMemoryStateStore, type MemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { HELLO, postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const tierOf = async (response: Response): Promise<string | null> => {
  await response.arrayBuffer();
  return response.headers.get('x-autotier-tier');
};

describe('session ladders per API key', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => ({
        ...simpleTable({ urls, group: ['a'] }),
        api_keys: [
          { name: 'team-a', sha256: hashKey('sk-team-a'), allow_overrides: true },
          { name: 'team-b', sha256: hashKey('sk-team-b'), allow_overrides: true },
        ],
      }),
    });
  });
  afterAll(() => stack.close());

  it("does not raise key B's request by key A's session on the same x-session-id", async () => {
    const session = { 'x-session-id': 'shared-conversation' };
    const hard = { model: 'tier:EXPERT', messages: HELLO };
    const easy = { model: 'tier:SIMPLE', messages: HELLO };
    expect(await tierOf(await postChat(stack.url, hard, { ...bearer('sk-team-a'), ...session }))).toBe(
      'EXPERT',
    );
    expect(await tierOf(await postChat(stack.url, easy, { ...bearer('sk-team-b'), ...session }))).toBe(
      'SIMPLE',
    );
    expect(await tierOf(await postChat(stack.url, easy, { ...bearer('sk-team-a'), ...session }))).toBe(
      'EXPERT',
    );
  });
});

describe('session ladders in memory', () => {
  // HTTP is slow on a loaded machine (about 200 requests a second); the 5,000-id case runs on the
  // store itself in test/unit/session-memory.test.ts
  const MAX_SESSIONS = 50;
  const REQUESTS = 300;
  let stack: Stack;
  let store: MemoryStateStore;
  beforeAll(async () => {
    store = createMemoryStateStore({ clock: systemClock, maxSessions: MAX_SESSIONS });
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => simpleTable({ urls, group: ['a'] }),
      store,
    });
  });
  afterAll(() => stack.close());

  it('keeps at most its cap of sessions however many distinct 8 kB ids arrive over HTTP, and keeps a long id working', async () => {
    const longId = (index: number): string => `${index}-`.padEnd(8192, 'x');
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < REQUESTS; index = next++) {
        const response = await postChat(
          stack.url,
          { model: 'tier:SIMPLE', messages: HELLO },
          { 'x-session-id': longId(index) },
        );
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(store.sessionCount()).toBe(MAX_SESSIONS);
    const session = { 'x-session-id': longId(REQUESTS) };
    await tierOf(await postChat(stack.url, { model: 'tier:COMPLEX', messages: HELLO }, session));
    expect(await tierOf(await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO }, session))).toBe(
      'COMPLEX',
    );
    expect(store.sessionCount()).toBe(MAX_SESSIONS);
  });
});
