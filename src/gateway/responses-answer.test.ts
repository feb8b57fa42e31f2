import { describe, expect, it } from 'vitest';
import { deploymentSchema, tierSchema } from '../config/table-part-schemas.js';
import type { ExecuteResult } from '../balance/balancer.js';
import { toChunkFromResponseEvent } from '../upstream/response-event-chunk.js';
import { shapeResponsesBody, toResponsesShape } from './responses-answer.js';
import { parseResponsesRequest } from './responses-request.js';

const deployment = deploymentSchema.parse({
  id: 'a',
  model: 'qwen3-8b',
  base_url: 'http://127.0.0.1:1/v1',
  context_window: 32768,
  responses: true,
  extra_body: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 },
});
const tierConfig = tierSchema.parse({
  group: ['a'],
  system_prompt_prefix: 'House rules.',
  extra_body: { chat_template_kwargs: { enable_thinking: true } },
});

describe('shapeResponsesBody (the body sent natively to a deployment that serves /responses)', () => {
  it('sets the served model, capped max_output_tokens, stream, store off and the extras, prefix before instructions', () => {
    const body = JSON.parse(
      shapeResponsesBody({
        body: {
          model: 'auto',
          input: [
            { type: 'item_reference', id: 'rs_1' },
            { role: 'user', content: 'Hi' },
          ],
          instructions: 'Be brief.',
          max_output_tokens: 9999,
          store: true,
          chat_template_kwargs: { custom: 1 },
        },
        deployment,
        tierConfig,
        maxTokens: 512,
      }),
    ) as Record<string, unknown>;
    expect(body).toEqual({
      model: 'qwen3-8b',
      input: [{ role: 'user', content: 'Hi' }],
      instructions: 'House rules.\n\nBe brief.',
      max_output_tokens: 512,
      stream: true,
      store: false,
      top_k: 20,
      chat_template_kwargs: { custom: 1, enable_thinking: true },
    });
  });
});

describe('the native framing (a deployment that served /responses itself)', () => {
  it("passes the deployment's events through with event lines, and numbers a later failure after them", () => {
    const request = parseResponsesRequest({ model: 'auto', input: 'hi' });
    const result = { deployment, firstTokenAt: 1000, head: [] } as unknown as ExecuteResult;
    const framer = toResponsesShape(request, 'request-1').toFramer(result);
    const data =
      '{"type":"response.created",\n"sequence_number":0,"response":{"id":"resp_up","model":"qwen3-8b","created_at":5}}';
    const chunk = toChunkFromResponseEvent(JSON.parse(data) as Record<string, unknown>);
    expect(framer.frame({ data, chunk, firstContent: false })).toBe(
      'event: response.created\ndata: {"type":"response.created",\ndata: "sequence_number":0,"response":{"id":"resp_up","model":"qwen3-8b","created_at":5}}\n\n',
    );
    expect(framer.end()).toBe('');
    const failed = framer
      .fail({ error: { message: 'cut', type: 'api_error', code: 'upstream_stream_cut', param: null } })
      .split('\n\n')
      .filter((frame) => frame !== '')
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Record<string, unknown>);
    expect(failed).toEqual([
      { type: 'error', sequence_number: 1, code: 'upstream_stream_cut', message: 'cut', param: null },
      expect.objectContaining({
        type: 'response.failed',
        sequence_number: 2,
        response: expect.objectContaining({
          id: 'resp_up',
          model: 'qwen3-8b',
          status: 'failed',
          error: { code: 'upstream_stream_cut', message: 'cut' },
        }) as unknown,
      }),
    ]);
  });
});
