import { z } from 'zod';
import { RouterError } from '../shared/errors.js';
import { parseBody } from './chat-request.js';
import { REQUEST_LIMITS } from './request-limits.js';

/**
 * A `POST /v1/responses` body (https://platform.openai.com/docs/api-reference/responses/create): the
 * fields autotier reads, checked; every other accepted field (body-fields.ts) is kept (sent natively, or passed on to the chat
 * body like unknown chat fields are). Items and parts are read leniently here and checked one by one
 * when translated (to-chat-body.ts), so an error names the exact item.
 */
const atMost = (count: number, what: string): { error: string } => ({
  error: `at most ${count} ${what} (the limit)`,
});

const itemSchema = z.looseObject({ type: z.string().optional() });

const inputSchema = z.union([
  z.string(),
  z.array(itemSchema).max(REQUEST_LIMITS.messages, atMost(REQUEST_LIMITS.messages, 'input items')),
]);

const formatSchema = z.looseObject({ type: z.enum(['text', 'json_schema', 'json_object']) });

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1).max(REQUEST_LIMITS.modelChars, atMost(REQUEST_LIMITS.modelChars, 'characters')),
  input: inputSchema,
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z
    .array(z.looseObject({ type: z.string() }))
    .max(REQUEST_LIMITS.tools, atMost(REQUEST_LIMITS.tools, 'tools'))
    .nullish(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string() })]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: formatSchema.nullish() }).nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      summary: z.string().nullish(),
    })
    .nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  store: z.boolean().nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  include: z.array(z.string()).nullish(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/**
 * Fields autotier refuses with a 400 naming them, and why: each needs state or a hosted service that a
 * router in front of self-hosted models does not have. `null`, `false` and empty values are accepted
 * (SDKs send them as defaults).
 */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  previous_response_id:
    'autotier does not store responses, so it cannot continue one: send the whole conversation in `input`',
  conversation:
    'autotier does not store conversations: send the whole conversation in `input` (and no `conversation`)',
  background: 'background responses are not supported: leave `background` unset or false',
  prompt: 'stored prompt templates are not supported: send the text in `instructions` and `input`',
  include: 'no extra output (`include`) is supported: leave it unset or empty',
  top_logprobs: '`top_logprobs` is not supported on /v1/responses',
  max_tool_calls: '`max_tool_calls` is not supported',
};

function isUnset(value: unknown): boolean {
  return (
    value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)
  );
}

/**
 * Parses a Responses body, or throws INVALID_REQUEST naming the field: a malformed field, or one that
 * autotier does not support (previous_response_id, background, include, ...). `truncation: auto` is
 * refused too: autotier never drops input to make it fit (a prompt too long for every deployment is a 400).
 */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const request = parseBody(responsesRequestSchema, body);
  for (const [param, reason] of Object.entries(UNSUPPORTED)) {
    if (!isUnset(request[param])) throw new RouterError({ code: 'INVALID_REQUEST', message: reason, param });
  }
  if (request.truncation === 'auto') {
    throw new RouterError({
      code: 'INVALID_REQUEST',
      message:
        "`truncation: auto` is not supported: autotier never drops input (use 'disabled'; a prompt that fits no deployment is a 400)",
      param: 'truncation',
    });
  }
  return request;
}
