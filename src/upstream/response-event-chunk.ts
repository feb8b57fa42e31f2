import type { ChatChunk, Usage } from './chat-chunk.js';

/**
 * The wire protocol of an upstream stream: chat (and legacy) completion chunks, or the typed events
 * of the OpenAI Responses API (`POST /responses` on a deployment with `responses: true`).
 */
export type StreamProtocol = 'chat' | 'responses';

/** The protocol a deployment path speaks. */
export function toStreamProtocol(path: string): StreamProtocol {
  return path === '/responses' ? 'responses' : 'chat';
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Responses usage (`input_tokens`, `output_tokens`) as the chat usage the balancer and limits read. */
export function toChatUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const input = usage['input_tokens'];
  const output = usage['output_tokens'];
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  const total = usage['total_tokens'];
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: typeof total === 'number' ? total : input + output,
  };
}

/** The finish reason a terminal Responses event stands for. */
function toFinishReason(response: JsonObject): string {
  const details = response['incomplete_details'];
  const reason = isObject(details) ? details['reason'] : undefined;
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return 'stop';
}

/** A chunk of choice 0 with one delta. */
function deltaChunk(delta: JsonObject, identity: JsonObject): ChatChunk {
  return Object.assign(identity, { choices: [{ index: 0, delta }] });
}

/**
 * One typed Responses stream event read as the chat chunk the balancer understands: text and reasoning
 * deltas as content, a function call's opening and argument deltas as tool-call deltas (so the commit
 * point, time to first token and idle timer work as for chat), the terminal event's usage and finish
 * reason, and `response.failed` / `error` as an in-stream error. The event's raw text is what the client
 * is sent; this view is only read. The event's type is kept as `event_type`, and its `sequence_number`.
 */
export function toChunkFromResponseEvent(event: JsonObject): ChatChunk {
  const type = text(event['type']) ?? '';
  const identity: JsonObject = { event_type: type };
  if (typeof event['sequence_number'] === 'number') identity['sequence_number'] = event['sequence_number'];
  const response = isObject(event['response']) ? event['response'] : undefined;
  switch (type) {
    case 'response.created':
      if (response === undefined) return identity;
      if (typeof response['id'] === 'string') identity['id'] = response['id'];
      if (typeof response['model'] === 'string') identity['model'] = response['model'];
      if (typeof response['created_at'] === 'number') identity['created'] = response['created_at'];
      return identity;
    case 'response.output_text.delta':
      return deltaChunk({ content: text(event['delta']) ?? '' }, identity);
    case 'response.reasoning_text.delta':
    case 'response.reasoning_summary_text.delta':
      return deltaChunk({ reasoning_content: text(event['delta']) ?? '' }, identity);
    case 'response.function_call_arguments.delta':
      return deltaChunk(
        { tool_calls: [{ index: 0, function: { arguments: text(event['delta']) ?? '' } }] },
        identity,
      );
    case 'response.output_item.added': {
      const item = event['item'];
      if (!isObject(item) || item['type'] !== 'function_call') return identity;
      const call = { index: 0, id: text(item['call_id']), function: { name: text(item['name']) ?? '' } };
      return deltaChunk({ tool_calls: [call] }, identity);
    }
    case 'response.completed':
    case 'response.incomplete':
      return Object.assign(identity, {
        choices: [{ index: 0, delta: {}, finish_reason: toFinishReason(response ?? {}) }],
        usage: toChatUsage(response?.['usage']) ?? null,
      });
    case 'response.failed':
      return Object.assign(identity, { error: response?.['error'] ?? 'response.failed' });
    case 'error':
      return Object.assign(identity, {
        error: { code: event['code'] ?? null, message: event['message'] ?? null },
      });
    default:
      return identity;
  }
}
