import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import type { FaultName, SimBackend } from './types.js';

let backend: SimBackend;
beforeEach(async () => {
  backend = await createSimulatedBackend({ id: 'sim-h', models: ['model-h'] });
});
afterEach(() => backend.close());

const healthUrl = (): string => backend.baseUrl.replace(/\/v1$/, '/health');
const modelsUrl = (): string => `${backend.baseUrl}/models`;

/** The status, the connection error's code, or `timeout` when nothing came within 1 s. */
async function fetchOutcome(url: string): Promise<number | string> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return 'timeout';
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? 'error';
  }
}

describe('the simulator: /health and /v1/models like vLLM', () => {
  it('answers /health 200 with an empty body while healthy', async () => {
    const response = await fetch(healthUrl());
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('fails /health and /v1/models while a server-down fault is set: 503, reset, silence', async () => {
    const expected: [FaultName, number | string][] = [
      ['error_503', 503],
      ['reset_before_headers', 'ECONNRESET'],
      ['no_response', 'timeout'],
    ];
    for (const [name, outcome] of expected) {
      backend.setFault({ name });
      expect(await fetchOutcome(healthUrl()), `/health under ${name}`).toBe(outcome);
      expect(await fetchOutcome(modelsUrl()), `/v1/models under ${name}`).toBe(outcome);
    }
    backend.setFault(null);
    expect(await fetchOutcome(healthUrl())).toBe(200);
    expect(backend.stats().byFault).toMatchObject({ error_503: 2, reset_before_headers: 2, no_response: 2 });
  });

  it('keeps /health at 200 under faults of a live server (rate limits, flapping, slow or cut streams)', async () => {
    const live: FaultName[] = [
      'rate_limit',
      'flapping',
      'error_500_once',
      'headers_then_nothing',
      'cut_mid_stream',
    ];
    for (const name of live) {
      backend.setFault({ name });
      expect(await fetchOutcome(healthUrl()), name).toBe(200);
    }
  });
});
