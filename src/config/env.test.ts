import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';

describe('parseEnv: AUTOTIER_SHUTDOWN_GRACE_MS', () => {
  it('gives in-flight requests 30 s by default, and takes 0 (stop at once) or any whole number of ms', () => {
    expect(parseEnv({}).AUTOTIER_SHUTDOWN_GRACE_MS).toBe(30_000);
    expect(parseEnv({ AUTOTIER_SHUTDOWN_GRACE_MS: '0' }).AUTOTIER_SHUTDOWN_GRACE_MS).toBe(0);
    expect(parseEnv({ AUTOTIER_SHUTDOWN_GRACE_MS: '120000' }).AUTOTIER_SHUTDOWN_GRACE_MS).toBe(120_000);
  });

  it('refuses a negative, fractional or non-numeric grace period, naming the variable', () => {
    for (const value of ['-1', '1.5', 'soon'])
      expect(() => parseEnv({ AUTOTIER_SHUTDOWN_GRACE_MS: value })).toThrow(/AUTOTIER_SHUTDOWN_GRACE_MS/);
  });
});
