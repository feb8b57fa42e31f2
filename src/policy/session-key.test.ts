import { describe, expect, it } from 'vitest';
import { SESSION_ID_MAX_CHARS, toSessionKey } from './session-key.js';

describe('toSessionKey', () => {
  it('gives every id, short or 8 kB long, a key of the same 43 characters', () => {
    const short = toSessionKey({ keyName: undefined, sessionId: 'c1' });
    const long = toSessionKey({ keyName: undefined, sessionId: 'x'.repeat(8192) });
    expect(short).toHaveLength(43);
    expect(long).toHaveLength(43);
    expect(short).not.toBe(long);
  });

  it('gives the same id under two API keys, or under a key and open mode, different keys', () => {
    const keys = [undefined, 'team-a', 'team-b'].map((keyName) =>
      toSessionKey({ keyName, sessionId: 'conversation-1' }),
    );
    expect(new Set(keys).size).toBe(3);
    expect(toSessionKey({ keyName: 'team-a', sessionId: 'conversation-1' })).toBe(keys[1]);
  });

  it('cannot be made to collide by moving text between the key name and the id', () => {
    expect(toSessionKey({ keyName: 'a', sessionId: 'b:c' })).not.toBe(
      toSessionKey({ keyName: 'a:b', sessionId: 'c' }),
    );
  });

  it('reads only the first SESSION_ID_MAX_CHARS characters of an id', () => {
    const head = 'y'.repeat(SESSION_ID_MAX_CHARS);
    expect(toSessionKey({ keyName: 'k', sessionId: `${head}tail-1` })).toBe(
      toSessionKey({ keyName: 'k', sessionId: `${head}tail-2` }),
    );
  });

  it('names no session for a missing or empty id', () => {
    expect(toSessionKey({ keyName: 'k', sessionId: undefined })).toBeUndefined();
    expect(toSessionKey({ keyName: 'k', sessionId: '' })).toBeUndefined();
  });
});
