import { describe, expect, it } from 'vitest';
import { testExchange, testKey } from '../../../test/helpers/exchange-fixtures.js';
import type { ApiKeyConfig } from '../../config/table-part-schemas.js';
import { RouterError } from '../../shared/errors.js';
import type { Access, Exchange } from '../exchange.js';
import { authenticateStage } from './authenticate.js';

const alice = testKey();
const root = testKey({ name: 'root', sha256: '1'.repeat(64), admin: true });
const KEYS: Record<string, ApiKeyConfig> = { 'secret-alice': alice, 'secret-root': root };

/** Keys configured: a key by its x-api-key, 401 for none or an unknown one; counts its calls. */
function keyedAuthenticate(): ((credentials: Exchange['credentials']) => ApiKeyConfig) & { calls: number } {
  const authenticate = (credentials: Exchange['credentials']): ApiKeyConfig => {
    authenticate.calls += 1;
    if (credentials.apiKey === undefined)
      throw new RouterError({ code: 'UNAUTHORIZED', message: 'missing API key' });
    const key = KEYS[credentials.apiKey];
    if (key === undefined) throw new RouterError({ code: 'UNAUTHORIZED', message: 'unknown API key' });
    return key;
  };
  authenticate.calls = 0;
  return authenticate;
}

type Authenticate = (credentials: Exchange['credentials']) => ApiKeyConfig | undefined;

async function run(
  access: Access,
  apiKey: string | undefined,
  authenticate: Authenticate = keyedAuthenticate(),
) {
  const exchange = testExchange({ credentials: apiKey === undefined ? {} : { apiKey } });
  exchange.access = access;
  await authenticateStage(authenticate).run(exchange);
  return exchange;
}

function rejection(access: Access, apiKey: string | undefined): Promise<RouterError> {
  return run(access, apiKey).then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as RouterError,
  );
}

describe('the authenticate stage', () => {
  it('takes no key on an open route, even with credentials, and reveals nothing internal', async () => {
    const authenticate = keyedAuthenticate();
    const exchange = await run('open', 'secret-root', authenticate);
    expect(authenticate.calls).toBe(0);
    expect(exchange.key).toBeUndefined();
    expect(exchange.revealInternal).toBe(false);
  });

  it('answers 401 on a key route for a missing or an unknown key', async () => {
    expect(await rejection('key', undefined)).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(await rejection('key', 'secret-mallory')).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'unknown API key',
    });
  });

  it("sets the caller's key; only an admin key may see internal detail", async () => {
    expect(await run('key', 'secret-alice')).toMatchObject({ key: alice, revealInternal: false });
    expect(await run('key', 'secret-root')).toMatchObject({ key: root, revealInternal: true });
  });

  it('answers 403 to a key that is not an admin key on an admin route', async () => {
    expect(await rejection('admin', 'secret-alice')).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      message: 'key alice is not an admin key',
    });
    expect(await run('admin', 'secret-root')).toMatchObject({ key: root, revealInternal: true });
  });

  it('lets everything through in open mode (no keys configured), with internal detail', async () => {
    const openMode = (): undefined => undefined;
    expect(await run('key', undefined, openMode)).toMatchObject({
      key: undefined,
      revealInternal: true,
    });
    expect(await run('admin', 'anything', openMode)).toMatchObject({
      key: undefined,
      revealInternal: true,
    });
  });
});
