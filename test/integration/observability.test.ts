import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELLO, postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';
import { sample } from '../helpers/prometheus.js';

describe('metrics, logs and state after a known sequence of requests', () => {
  let stack: Stack;
  const secretPrompt = 'my confidential prompt about project nightingale';
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'a', models: ['sim-model'] },
        { id: 'b', models: ['sim-model'] },
      ],
      random: () => 0,
      table: (urls) => simpleTable({ urls, group: ['a'], fallback: ['b'] }),
    });
    await postChat(stack.url, { model: 'tier:SIMPLE', messages: [{ role: 'user', content: secretPrompt }] });
    await postChat(stack.url, { model: 'tier:COMPLEX', messages: HELLO, stream: true }).then((response) =>
      response.text(),
    );
    // a is the group's only member: its 503 is retried in place once before the weaker b answers
    stack.sim('a').setFault({ name: 'error_503' });
    await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    await postChat(stack.url, { model: 'nonexistent', messages: HELLO });
  });
  afterAll(() => stack.close());

  it('counts requests by tier, cause and status, attempts by outcome, fallbacks and cooldowns', async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    expect(
      sample(text, 'autotier_requests_total', { tier: 'SIMPLE', cause: 'override', status: '200' }),
    ).toBe(2);
    expect(sample(text, 'autotier_requests_total', { tier: 'COMPLEX', status: '200' })).toBe(1);
    expect(sample(text, 'autotier_requests_total', { tier: 'none', status: '404' })).toBe(1);
    expect(sample(text, 'autotier_upstream_attempts_total', { deployment: 'a', outcome: 'OK' })).toBe(2);
    expect(
      sample(text, 'autotier_upstream_attempts_total', { deployment: 'a', outcome: 'UPSTREAM_SERVER_ERROR' }),
    ).toBe(2);
    expect(sample(text, 'autotier_upstream_attempts_total', { deployment: 'b', outcome: 'OK' })).toBe(1);
    expect(sample(text, 'autotier_fallbacks_total', { tier: 'SIMPLE' })).toBe(1);
    expect(
      sample(text, 'autotier_cooldowns_total', { deployment: 'a', reason: 'UPSTREAM_SERVER_ERROR' }),
    ).toBe(1);
    expect(sample(text, 'autotier_ttft_seconds_count', { tier: 'SIMPLE', deployment: 'a' })).toBe(1);
    expect(text).toContain('autotier_in_flight');
  });

  it('times every stage each request ran through: the unknown model stops in classify, settle ends all four', async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    const count = (stage: string): number =>
      sample(text, 'autotier_request_stage_runs_total', { stage, endpoint: 'chat' });
    expect(['authenticate', 'parse', 'admit', 'classify'].map(count)).toEqual([4, 4, 4, 4]);
    expect(['plan', 'reserve', 'balance', 'answer'].map(count)).toEqual([3, 3, 3, 3]);
    expect(count('settle')).toBe(4);
    expect(
      sample(text, 'autotier_request_stage_seconds_total', { stage: 'balance', endpoint: 'chat' }),
    ).toBeGreaterThan(0);
  });

  it('writes one line per request and per attempt, with confirmed token usage', () => {
    const requests = stack.logger.lines.filter((line) => line.message === 'request');
    const attempts = stack.logger.lines.filter((line) => line.message === 'upstream attempt');
    expect(requests).toHaveLength(4);
    expect(attempts).toHaveLength(5);
    expect(requests[0]?.fields).toMatchObject({
      tier: 'SIMPLE',
      deployment: 'a',
      status: 200,
      token_status: 'confirmed',
      completion_tokens: 16,
    });
    expect(requests[0]?.fields['request_id']).toMatch(/.+/);
  });

  it('never logs the prompt text by default', () => {
    expect(JSON.stringify(stack.logger.lines)).not.toContain('nightingale');
  });

  it('shows each deployment health, cooldown, in-flight and recent errors in /autotier/state', async () => {
    const state = (await (await fetch(`${stack.url}/autotier/state`)).json()) as {
      routing_table: { version: string };
      deployments: {
        id: string;
        health: string;
        cooldown: { reason: string } | null;
        in_flight: number;
        recent_errors: Record<string, number>;
      }[];
    };
    const a = state.deployments.find((deployment) => deployment.id === 'a');
    expect(a).toMatchObject({
      health: 'cooling_down',
      in_flight: 0,
      recent_errors: { UPSTREAM_SERVER_ERROR: 2 },
    });
    expect(a?.cooldown?.reason).toBe('UPSTREAM_SERVER_ERROR');
    expect(state.deployments.find((deployment) => deployment.id === 'b')?.health).toBe('healthy');
    expect(state.routing_table.version).toMatch(/^[0-9a-f]{8}$/);
  });

  it('ties error bodies to the request id', async () => {
    const response = await postChat(
      stack.url,
      { model: 'nonexistent', messages: HELLO },
      { 'x-request-id': 'trace-42' },
    );
    expect(((await response.json()) as { error: { request_id: string } }).error.request_id).toBe(
      response.headers.get('x-request-id'),
    );
  });
});

describe('content logging', () => {
  let stack: Stack;
  afterAll(() => stack.close());

  it('puts prompt and completion text in the request line only when log_content is on', async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => ({ ...simpleTable({ urls, group: ['a'] }), log_content: true }),
    });
    const response = await postChat(stack.url, {
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'log me please' }],
      stream: true,
    });
    await response.text();
    await expect
      .poll(() => stack.logger.lines.find((line) => line.message === 'request')?.fields['prompt'])
      .toBe('log me please');
    const line = stack.logger.lines.find((entry) => entry.message === 'request');
    expect(String(line?.fields['completion'])).toMatch(/\w+/);
  });
});
