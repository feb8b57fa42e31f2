import { describe, expect, it } from 'vitest';
import { deployment } from '../../test/helpers/balance-fixtures.js';
import { toProbeRequest } from './to-probe-request.js';

describe('toProbeRequest', () => {
  it('asks vLLM for /health at the server root, not below /v1', () => {
    const target = deployment('gpu', { base_url: 'http://gpu-1.lan:8000/v1' });
    expect(toProbeRequest(target, 'health')).toEqual({
      url: 'http://gpu-1.lan:8000/health',
      method: 'GET',
      headers: { accept: 'application/json' },
    });
  });

  it('keeps a path prefix before /v1 (a server behind a reverse proxy) and a trailing slash does not matter', () => {
    const target = deployment('proxied', { base_url: 'https://gateway.lan/qwen/v1/' });
    expect(toProbeRequest(target, 'health').url).toBe('https://gateway.lan/qwen/health');
    expect(toProbeRequest(target, 'models').url).toBe('https://gateway.lan/qwen/v1/models');
  });

  it('lists models below base_url, for servers without /health (mlx_lm.server)', () => {
    const target = deployment('mlx', { base_url: 'http://mac-studio-1.lan:8080/v1' });
    expect(toProbeRequest(target, 'models')).toMatchObject({
      url: 'http://mac-studio-1.lan:8080/v1/models',
      method: 'GET',
    });
  });

  it('sends a one-token, non-streamed chat completion for the served model name, with the API key', () => {
    const target = deployment('keyed', { model: 'Qwen/Qwen3-8B', base_url: 'http://host:8000/v1' });
    const probe = toProbeRequest(target, 'chat', 'sk-test-key-1234');
    expect(probe).toMatchObject({
      url: 'http://host:8000/v1/chat/completions',
      method: 'POST',
      headers: { authorization: 'Bearer sk-test-key-1234', 'content-type': 'application/json' },
    });
    expect(JSON.parse(probe.body ?? '')).toEqual({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: 'ping' }],
      max_tokens: 1,
      stream: false,
    });
  });
});
