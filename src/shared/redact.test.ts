import { describe, expect, it } from 'vitest';
import { maskSecrets, redactAddresses, redactSecrets } from './redact.js';

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

  it('masks credentials in URLs of any scheme, with and without a user name', () => {
    expect(redactSecrets('fetch http://admin:pw@10.0.0.5:8000/v1 failed')).toBe(
      'fetch http://***@10.0.0.5:8000/v1 failed',
    );
    expect(maskSecrets('redis://:s3cret@cache:6379/0')).toBe('redis://***@cache:6379/0');
    expect(maskSecrets('clone https://ghp_x@github.com/o/r.git')).toBe(
      'clone https://***@github.com/o/r.git',
    );
    expect(maskSecrets('MONGO=mongodb+srv://app:pa%40ss@db.example/x')).not.toContain('pa%40ss');
    expect(maskSecrets('mail bob@example.com')).toBe('mail bob@example.com');
  });

  it.each([
    ['key=value', 'client_secret=abc-123-def', 'abc-123-def'],
    ['key: value (YAML)', 'db:\n  password: hunter2\n', 'hunter2'],
    ['"key": "value" (JSON)', '{"refresh_token": "rt 77 with spaces"}', 'rt 77 with spaces'],
    ['escaped JSON', '{\\"apiKey\\": \\"k-9988\\"}', 'k-9988'],
    ['Python repr', "{'authorization': 'Bearer abc.def-99'}", 'abc.def-99'],
    ['query string', 'GET /v1?x=1&access_token=qs-123&y=2', 'qs-123'],
    ['header', 'X-Api-Key: key-4455', 'key-4455'],
    ['Basic header', 'Authorization: Basic dXNlcjpwYXNz', 'dXNlcjpwYXNz'],
    ['camelCase', '{"clientSecret":"cs-0099"}', 'cs-0099'],
    ['AWS ini', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI'],
    ['AWS JSON', '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', 'wJalrXUtnFEMI'],
    ['passwd', 'passwd=letmein', 'letmein'],
    ['Bearer in prose', 'used Bearer eyJraWQ-99 for it', 'eyJraWQ-99'],
  ])('masks a named secret written as %s', (_syntax, text, secret) => {
    expect(maskSecrets(text)).not.toContain(secret);
  });

  it.each([
    ['OpenAI', 'sk-4kS9mP2qR7tV1wX3yZ5aB8cD0eF6gHjKlMnOp'],
    ['OpenAI project', 'sk-proj-4kS9mP2qR7tV1wX3yZ5aB8cD0eF6gH'],
    ['Anthropic', 'sk-ant-api03-Xy7Qm2Lp9Rt4Vw6Zb1Nc3Kd5Hf8Jg0Ps'],
    ['GitHub classic', 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'],
    ['GitHub user-to-server', 'ghu_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'],
    ['GitHub refresh', 'ghr_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'],
    ['GitHub fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['Hugging Face', 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS temporary key id', 'ASIAY34FZKBOKMUTVV7A'],
    ['Slack bot', 'xoxb-2400013250-5829003451-AbCdEfGhIjKlMnOp'],
    ['Slack user', 'xoxp-2400013250-5829003451-AbCdEfGhIjKlMnOp'],
    ['Slack app', 'xapp-1-A0123456789-1234567890123-abcdef0123'],
    ['JWT', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
    ['Google API key', 'AIzaSyD4x9Q2mV7pK1wE6tR3yU8iO0aS5dF2gHj'],
  ])('masks a %s token wherever it stands', (_format, token) => {
    for (const text of [token, `got ${token}.`, `(${token})`, `"${token}"`, `key=${token}&x=1`])
      expect(maskSecrets(text)).not.toContain(token);
  });

  it('masks private key blocks, terminated or cut', () => {
    const block = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\n-----END EC PRIVATE KEY-----';
    expect(maskSecrets(`key ${block} done`)).toBe('key *** done');
    expect(maskSecrets('-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN')).not.toContain('MIIEvQ');
  });

  it('keeps ordinary prose, model names and limits as they are', () => {
    for (const text of [
      'maximum context length is 32768 tokens. However, you requested 40000 tokens',
      'model Qwen/Qwen3-30B-A3B and meta-llama/Llama-3.1-8B-Instruct at 12:30',
      '{"max_tokens": 512, "prompt_tokens": 12, "tokenizer": "qwen3", "top_p": 0.9}',
      'bearer tokens are accepted; Basic usage is documented; the secret of good code',
      'risk-adjusted sk-learn pipelines; task-force std::vector<int> version 1.2.3',
      'send mail to bob@example.com or see https://docs.example.com/a?b=c',
    ])
      expect(maskSecrets(text)).toBe(text);
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

  it('masks private host names, bare IPv6, any-scheme URLs and the given internal names', () => {
    const text =
      'via redis://cache:6379, vllm-0.gpu.internal, api.svc.cluster.local., box.local, localhost, ' +
      'fd00::7, ::1, fe80:0:0:0:0:0:0:1 and gpu-node-7; Qwen/Qwen3-30B-A3B at 12:30:45 std::vector';
    const masked = redactAddresses(text, ['gpu-node-7']);
    expect(masked).not.toMatch(
      /cache:6379|gpu\.internal|cluster\.local|box\.local|localhost|fd00|::1|fe80|gpu-node-7/,
    );
    expect(masked).toContain('Qwen/Qwen3-30B-A3B at 12:30:45 std::vector');
  });
});

/** Texts built to make a backtracking pattern take quadratic or exponential time, 1 MB each. */
const HOSTILE = {
  dots: 'a.'.repeat(500_000),
  bearers: 'Bearer '.repeat(150_000),
  names: 'password '.repeat(120_000),
  nameRun: `${'a'.repeat(1_000_000)}=`,
  pairs: 'a=a='.repeat(250_000),
  quotes: 'password="'.repeat(100_000),
  jwtParts: 'eyJa.'.repeat(200_000),
  jwtDashes: 'eyJ-'.repeat(250_000),
  schemes: 'a://'.repeat(250_000),
  userinfo: `a://${':'.repeat(1_000_000)}`,
  pem: '-----BEGIN PRIVATE KEY-----'.repeat(40_000),
  tokens: 'sk-'.repeat(330_000),
  ipv6: 'f:'.repeat(500_000),
  hosts: 'a-'.repeat(500_000),
  labels: 'ab.'.repeat(330_000),
};

describe('redaction time on hostile text', () => {
  it.each(Object.entries(HOSTILE))(
    'masks a megabyte of %s in linear time',
    (_name, text) => {
      const started = performance.now();
      maskSecrets(text);
      redactAddresses(text);
      // linear: under half a second idle; a quadratic pattern would take hours on a megabyte
      expect(performance.now() - started).toBeLessThan(8000);
    },
    20_000,
  );

  it('cuts an upstream message to 2000 characters', () => {
    const hostile = `${'a.'.repeat(500_000)}${'Bearer '.repeat(100_000)}`;
    expect(redactSecrets(hostile).length).toBeLessThan(2100);
    expect(redactAddresses(hostile).length).toBeLessThan(2100);
  });
});
