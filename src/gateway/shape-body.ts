import type { DeploymentConfig, TierConfig } from '../config/routing-table-schema.js';
import type { ChatMessage } from '../shared/chat.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges `extra` into `base` one level deep, so chat_template_kwargs from two sources combine. */
export function mergeExtraBody(base: JsonObject, extra: Readonly<JsonObject>): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isObject(current) && isObject(value) ? { ...current, ...value } : value;
  }
  return merged;
}

function withSystemPrefix(
  messages: readonly ChatMessage[],
  prefix: string | undefined,
): readonly ChatMessage[] {
  if (prefix === undefined || prefix === '') return messages;
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string')
    return [{ ...first, content: `${prefix}\n\n${first.content}` }, ...rest];
  return [{ role: 'system', content: prefix }, ...messages];
}

export interface ShapeInput {
  /** The client's body, unknown fields included. */
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
  const shaped = mergeExtraBody(mergeExtraBody(body, deployment.extra_body), tierConfig.extra_body);
  shaped['model'] = deployment.model;
  shaped['stream'] = true;
  shaped['stream_options'] = {
    ...(isObject(body['stream_options']) ? body['stream_options'] : {}),
    include_usage: true,
  };
  shaped['max_tokens'] = input.maxTokens;
  delete shaped['max_completion_tokens'];
  if (Array.isArray(body['messages']))
    shaped['messages'] = withSystemPrefix(body['messages'] as ChatMessage[], tierConfig.system_prompt_prefix);
  return JSON.stringify(shaped);
}
