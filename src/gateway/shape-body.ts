import type { DeploymentConfig, TierConfig } from '../config/table-part-schemas.js';
import type { ChatMessage } from '../shared/chat.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields the extra bodies set, each merged one level deep over the body's own value (so
 * chat_template_kwargs from the client, the deployment and the tier combine); later extras win.
 */
export function toExtraFields(base: JsonObject, extras: readonly Readonly<JsonObject>[]): JsonObject {
  const fields: JsonObject = {};
  for (const extra of extras)
    for (const key of Object.keys(extra)) {
      const current = key in fields ? fields[key] : base[key];
      const value = extra[key];
      fields[key] = isObject(current) && isObject(value) ? Object.assign({}, current, value) : value;
    }
  return fields;
}

function withSystemPrefix(
  messages: readonly ChatMessage[],
  prefix: string | undefined,
): readonly ChatMessage[] {
  if (prefix === undefined || prefix === '') return messages;
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string')
    return [Object.assign({}, first, { content: `${prefix}\n\n${first.content}` }), ...rest];
  return [{ role: 'system', content: prefix }, ...messages];
}

export interface ShapeInput {
  /** The client's body, every accepted field included (body-fields.ts). */
  body: JsonObject;
  deployment: DeploymentConfig;
  tierConfig: TierConfig;
  maxTokens: number;
}

/**
 * The body sent to one deployment: its served model name, the deployment's and the tier's extra
 * params, the capped max_tokens, and always `stream: true` with usage, because autotier streams from
 * upstream even for non-streaming clients (so pre-content failures can fail over).
 */
export function shapeUpstreamBody(input: ShapeInput): string {
  const { body, deployment, tierConfig } = input;
  // One Object.assign into a fresh object: no `delete` and no spread-then-add (both make V8 keep
  // the object past young-generation GCs, see http/write-answer.ts). An undefined field is left out
  // by JSON.stringify.
  const shaped: JsonObject = Object.assign(
    {},
    body,
    toExtraFields(body, [deployment.extra_body, tierConfig.extra_body]),
    {
      model: deployment.model,
      stream: true,
      stream_options: Object.assign({}, isObject(body['stream_options']) ? body['stream_options'] : {}, {
        include_usage: true,
      }),
      max_tokens: input.maxTokens,
      max_completion_tokens: undefined,
    },
  );
  if (Array.isArray(body['messages']))
    shaped['messages'] = withSystemPrefix(body['messages'] as ChatMessage[], tierConfig.system_prompt_prefix);
  return JSON.stringify(shaped);
}
