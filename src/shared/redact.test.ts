import { describe, expect, it } from 'vitest';
import { redactAddresses, redactSecrets } from './redact.js';

describe('redacting upstream text', () => {
  it('masks an echoed Authorization header, named secrets, key shapes and known values', () => {
    const echoed =
      'bad request: headers were {"authorization": "Bearer vllm-secret-123", "x-api-key": "abc123456"} ' +
      'api_key=hunter22 password: p4ssw0rd token sk-proj-ABCDEFGH12345678 ' +
      'jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4 raw my-own-deployment-key';
    const masked = redactSecrets(echoed, ['my-own-deployment-key', undefined]);
    for (const secret of [
      'vllm-secret-123',
      'abc123456',
      'hunter22',
      'p4ssw0rd',
      'sk-proj-ABCDEFGH12345678',
      'eyJhbGciOiJIUzI1',
      'my-own-deployment-key',
    ])
      expect(masked).not.toContain(secret);
    expect(masked).toContain('bad request');
    expect(masked).toContain('"authorization": "***');
  });

  it('masks credentials in URLs and keeps ordinary text', () => {
    expect(redactSecrets('fetch http://admin:pw@10.0.0.5:8000/v1 failed')).toBe(
      'fetch http://***@10.0.0.5:8000/v1 failed',
    );
    expect(redactSecrets('maximum context length is 32768 tokens')).toBe(
      'maximum context length is 32768 tokens',
    );
  });

  it('masks URLs, IPs and host:port pairs for clients without an admin key', () => {
    const text =
      'qwen3-235b: connection failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8105); ' +
      'gpu-3.cluster.internal:8000 and [fd00::12]:8000 via http://10.1.2.3/v1 at 12:30';
    const masked = redactAddresses(text);
    expect(masked).not.toMatch(/127\.0\.0\.1|cluster\.internal|fd00|10\.1\.2\.3/);
    expect(masked).toContain('qwen3-235b: connection failed (ECONNREFUSED: connect ECONNREFUSED <internal>)');
    expect(masked).toContain('at 12:30');
  });

  it('stays bounded on a long hostile message', () => {
    const hostile = `${'a.'.repeat(500_000)}${'Bearer '.repeat(100_000)}`;
    expect(redactSecrets(hostile).length).toBeLessThan(2100);
    expect(redactAddresses(hostile).length).toBeLessThan(2100);
  });
});
