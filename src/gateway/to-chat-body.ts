import type { ChatMessage, ContentPart } from '../shared/chat.js';
import { RouterError } from '../shared/errors.js';
import type { ChatRequest } from './chat-request.js';
import { REQUEST_LIMITS } from './request-limits.js';
import type { ResponsesRequest } from './responses-request.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(param: string, message: string): RouterError {
  return new RouterError({
    code: 'INVALID_REQUEST',
    message: `invalid request: ${param}: ${message}`,
    param,
  });
}

/** A string field of an item, or a 400 naming it. */
function readString(item: JsonObject, field: string, param: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw invalid(`${param}.${field}`, 'expected a string');
  return value;
}

/**
 * Fields of a Responses body that chat completions do not have (or that are translated): they are not
 * passed on to the chat body. Any other unknown field (vLLM's `top_k`, `chat_template_kwargs`, ...) is,
 * as unknown chat fields are.
 */
const RESPONSES_ONLY = new Set([
  'input',
  'instructions',
  'max_output_tokens',
  'text',
  'reasoning',
  'metadata',
  'store',
  'truncation',
  'include',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
  'background',
  'previous_response_id',
  'conversation',
  'prompt',
  'top_logprobs',
  'max_tool_calls',
]);

/** One content part of a message item as a chat content part. */
function toContentPart(part: unknown, param: string): ContentPart {
  if (!isObject(part)) throw invalid(param, 'expected a content part object');
  switch (part['type']) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: readString(part, 'text', param) };
    case 'refusal':
      return { type: 'text', text: readString(part, 'refusal', param) };
    case 'input_image': {
      const url = part['image_url'];
      if (typeof url !== 'string' || url === '')
        throw invalid(
          `${param}.image_url`,
          'an image must be given by `image_url` (a URL or a data: URL); uploaded files (`file_id`) are not supported',
        );
      const detail = part['detail'];
      return {
        type: 'image_url',
        image_url: typeof detail === 'string' ? { url, detail } : { url },
      };
    }
    default:
      throw invalid(
        `${param}.type`,
        `content part type ${JSON.stringify(part['type'])} is not supported (input_text, output_text, refusal and input_image are)`,
      );
  }
}

/** A message item's content: a string, or parts (bounded like chat's). */
function toMessageContent(content: unknown, param: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(param, 'expected a string or a list of content parts');
  if (content.length > REQUEST_LIMITS.contentParts)
    throw invalid(param, `at most ${REQUEST_LIMITS.contentParts} content parts (the limit)`);
  return content.map((part, index) => toContentPart(part, `${param}[${index}]`));
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

/**
 * A message item as a chat message. `developer` becomes `system`: many open models' chat templates
 * know no developer role, and the two mean the same to them.
 */
function toMessage(item: JsonObject, param: string): ChatMessage {
  const role = item['role'];
  if (typeof role !== 'string' || !ROLES.has(role))
    throw invalid(`${param}.role`, 'expected one of user, assistant, system, developer');
  return {
    role: role === 'developer' ? 'system' : role,
    content: toMessageContent(item['content'], `${param}.content`),
  };
}

/** A function_call_output item's output as the tool message's content (text only). */
function toToolOutput(output: unknown, param: string): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) throw invalid(param, 'expected a string or a list of input_text parts');
  if (output.length > REQUEST_LIMITS.contentParts)
    throw invalid(param, `at most ${REQUEST_LIMITS.contentParts} content parts (the limit)`);
  return output
    .map((part: unknown, index) => {
      if (!isObject(part) || part['type'] !== 'input_text')
        throw invalid(`${param}[${index}]`, 'only input_text parts are supported in a tool output');
      return readString(part, 'text', `${param}[${index}]`);
    })
    .join('\n');
}

/** Appends a tool call to the assistant message that ends `messages`, or starts one. */
function pushToolCall(messages: ChatMessage[], call: JsonObject): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant' && !('tool_call_id' in last)) {
    (last.tool_calls ??= []).push(call);
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/**
 * Folds one input item into the chat messages. Reasoning items, and references to them (`rs_` ids,
 * which the Vercel AI SDK sends when `store` is on), are dropped: earlier turns' reasoning is not shown
 * to the model again (open models' chat templates drop it too). Any other item reference cannot be
 * resolved: autotier stores nothing.
 */
function foldItem(messages: ChatMessage[], item: JsonObject, param: string): void {
  const type = item['type'] ?? 'message';
  switch (type) {
    case 'message':
      messages.push(toMessage(item, param));
      return;
    case 'function_call':
      pushToolCall(messages, {
        id: readString(item, 'call_id', param),
        type: 'function',
        function: { name: readString(item, 'name', param), arguments: readString(item, 'arguments', param) },
      });
      return;
    case 'function_call_output':
      messages.push({
        role: 'tool',
        tool_call_id: readString(item, 'call_id', param),
        content: toToolOutput(item['output'], `${param}.output`),
      });
      return;
    case 'reasoning':
      return;
    case 'item_reference': {
      const id = readString(item, 'id', param);
      if (id.startsWith('rs_')) return;
      throw invalid(
        `${param}.id`,
        'autotier does not store responses, so an item_reference cannot be resolved: send the item itself (with the Vercel AI SDK, set providerOptions.openai.store to false)',
      );
    }
    default:
      throw invalid(
        `${param}.type`,
        `input item type ${JSON.stringify(type)} is not supported (message, function_call, function_call_output and reasoning are)`,
      );
  }
}

/** The chat messages of a Responses request: `instructions` as a system message, then the input. */
export function toChatMessages(request: ResponsesRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '')
    messages.push({ role: 'system', content: request.instructions });
  const { input } = request;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  input.forEach((item, index) => foldItem(messages, item, `input[${index}]`));
  if (messages.length === 0) throw invalid('input', 'the input has no message');
  return messages;
}

/** A function tool in the flat Responses shape as a chat tool; hosted tools are refused. */
function toChatTool(tool: JsonObject, param: string): JsonObject {
  if (tool['type'] !== 'function')
    throw invalid(
      `${param}.type`,
      `tool type ${JSON.stringify(tool['type'])} is not supported: autotier serves function tools only (no hosted web_search, file_search, code_interpreter, mcp, ...)`,
    );
  const definition: JsonObject = { name: readString(tool, 'name', param) };
  for (const field of ['description', 'parameters', 'strict'])
    if (tool[field] !== undefined && tool[field] !== null) definition[field] = tool[field];
  return { type: 'function', function: definition };
}

function toChatToolChoice(choice: ResponsesRequest['tool_choice']): unknown {
  if (choice === undefined || choice === null || typeof choice === 'string') return choice ?? undefined;
  if (choice.type === 'function' && typeof choice['name'] === 'string')
    return { type: 'function', function: { name: choice['name'] } };
  throw invalid(
    'tool_choice',
    'expected auto, none, required or { type: "function", name } (hosted tools and allowed_tools are not supported)',
  );
}

/** `text.format` as chat's `response_format` (undefined for plain text). */
function toResponseFormat(request: ResponsesRequest): unknown {
  const format = request.text?.format;
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (!isObject(format['schema'])) throw invalid('text.format.schema', 'expected a JSON schema object');
  const schema: JsonObject = {
    name: typeof format['name'] === 'string' ? format['name'] : 'response',
    schema: format['schema'],
  };
  if (typeof format['description'] === 'string') schema['description'] = format['description'];
  if (typeof format['strict'] === 'boolean') schema['strict'] = format['strict'];
  return { type: 'json_schema', json_schema: schema };
}

/** `reasoning.effort` as chat's `reasoning_effort` where chat servers know the value (vLLM: low, medium, high). */
function toReasoningEffort(request: ResponsesRequest): string | undefined {
  const effort = request.reasoning?.effort;
  return effort === 'low' || effort === 'medium' || effort === 'high' ? effort : undefined;
}

/**
 * The chat completion request a Responses request stands for: routed, limited and classified like
 * any chat request, and sent as is to deployments that do not serve /responses. The other accepted
 * fields (vLLM's sampling extras, body-fields.ts) pass on; the Responses-only ones do not.
 */
export function toChatBody(request: ResponsesRequest): ChatRequest {
  const body: JsonObject = {};
  for (const [key, value] of Object.entries(request)) if (!RESPONSES_ONLY.has(key)) body[key] = value;
  const tools = request.tools?.map((tool, index) => toChatTool(tool, `tools[${index}]`)) ?? [];
  const toolChoice = toChatToolChoice(request.tool_choice);
  const fields: JsonObject = {
    messages: toChatMessages(request),
    stream: request.stream ?? false,
    max_tokens: request.max_output_tokens ?? undefined,
    // chat servers refuse a tool_choice without tools; with none there is nothing to choose
    tools: tools.length === 0 ? undefined : tools,
    tool_choice: tools.length === 0 ? undefined : toolChoice,
    response_format: toResponseFormat(request),
    reasoning_effort: toReasoningEffort(request),
  };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
  return body as ChatRequest;
}
