import { describe, expect, it } from 'vitest';
import { isLoopbackHost, toListenHost } from './listen-host.js';
import { toReloadProblems } from './reload-policy.js';
import { routingTableSchema } from './routing-table-schema.js';

describe('toListenHost', () => {
  it('binds 127.0.0.1 for a keyless table unless --open, and 0.0.0.0 with keys', () => {
    expect(toListenHost({ host: undefined, open: false, keyless: true }).host).toBe('127.0.0.1');
    expect(toListenHost({ host: undefined, open: true, keyless: true }).host).toBe('0.0.0.0');
    expect(toListenHost({ host: undefined, open: false, keyless: false }).host).toBe('0.0.0.0');
    expect(toListenHost({ host: '10.0.0.5', open: false, keyless: false }).host).toBe('10.0.0.5');
  });

  it('refuses a keyless table on an explicit non-loopback host without --open', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.internal', '::ffff:10.0.0.1'])
      expect(() => toListenHost({ host, open: false, keyless: true })).toThrow(/AUTOTIER_OPEN=1/);
    expect(toListenHost({ host: '0.0.0.0', open: true, keyless: true }).host).toBe('0.0.0.0');
  });

  it('knows loopback hosts', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '128.0.0.1', 'localhost.example.com', '::2', 'fe80::1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('lets a keyed service beyond loopback reload to a keyless table only when started with --open', () => {
    const tier = { group: ['a'], timeouts: { connect_ms: 1, ttft_ms: 1, idle_ms: 1, total_ms: 1 } };
    const base = {
      deployments: [{ id: 'a', model: 'm', base_url: 'http://127.0.0.1:9/v1', context_window: 4096 }],
      tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    };
    const keyed = routingTableSchema.parse({ ...base, api_keys: [{ name: 'k', sha256: 'a'.repeat(64) }] });
    const open = routingTableSchema.parse({ ...base, open_mode: true });
    const exposed = toListenHost({ host: undefined, open: false, keyless: false });
    expect(toReloadProblems(keyed, open, exposed)).toEqual([
      expect.objectContaining({ path: 'api_keys', message: expect.stringContaining('--open') as unknown }),
    ]);
    const opened = toListenHost({ host: undefined, open: true, keyless: false });
    expect(toReloadProblems(keyed, open, opened)).toEqual([]);
    const loopback = toListenHost({ host: '127.0.0.1', open: false, keyless: false });
    expect(toReloadProblems(keyed, open, loopback)).toEqual([]);
  });
});
