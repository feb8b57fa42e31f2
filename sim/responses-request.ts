import type { ChatMessage } from '../src/shared/chat.js';
import { toPositiveInteger, type ChatRequestView, type SimTool } from './chat-request.js';
import { isRecord } from './json-from-schema.js';

/**
 * A `POST /v1/responses` body read leniently into the view the chat planner uses, as vLLM turns a
 * Responses request into a chat prompt: `instructions` as a system message, the input items as
 * messages (function calls as assistant turns, their outputs as tool turns), flat function tools,
 * `max_output_tokens`, `text.format` as the response format.
 */
export function toResponsesRequestView(body: Record<string, unknown>): ChatRequestView {
  const messages: ChatMessage[] = [];
  if (typeof body['instructions'] === 'string')
    messages.push({ role: 'system', content: body['instructions'] });
  const input = body['input'];
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else if (Array.isArray(input)) for (const item of input) if (isRecord(item)) messages.push(toMessage(item));
  const kwargs = body['chat_template_kwargs'];
  const toolChoice = readToolChoice(body['tool_choice']);
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    messages,
    stream: body['stream'] === true,
    includeUsage: true,
    n: 1,
    maxTokens: toPositiveInteger(body['max_output_tokens']),
    logprobs: false,
    topLogprobs: 0,
    responseFormat: readFormat(body['text']),
    tools: Array.isArray(body['tools']) ? body['tools'].flatMap(readTool) : [],
    toolChoice: toolChoice.choice,
    namedToolChoice: toolChoice.named,
    parallelToolCalls: body['parallel_tool_calls'] !== false,
    enableThinking: isRecord(kwargs) && kwargs['enable_thinking'] === true,
    continuePrefix: undefined,
    continuationProblem: undefined,
  };
}

/** One input item as a chat message (its text parts as `text` parts, so prompt estimates count them). */
function toMessage(item: Record<string, unknown>): ChatMessage {
  const type = item['type'] ?? 'message';
  if (type === 'function_call') return { role: 'assistant', content: null };
  if (type === 'function_call_output')
    return { role: 'tool', content: typeof item['output'] === 'string' ? item['output'] : '' };
  const role = typeof item['role'] === 'string' ? item['role'] : '';
  const content = item['content'];
  if (typeof content === 'string') return { role, content };
  const parts = Array.isArray(content) ? content.filter(isRecord) : [];
  return {
    role,
    content: parts.map((part) =>
      typeof part['text'] === 'string'
        ? { type: 'text', text: part['text'] }
        : { type: String(part['type']) },
    ),
  };
}

function readTool(value: unknown): SimTool[] {
  if (!isRecord(value) || value['type'] !== 'function' || typeof value['name'] !== 'string') return [];
  return [{ name: value['name'], parameters: value['parameters'] }];
}

function readToolChoice(value: unknown): { choice: string; named: boolean } {
  if (typeof value === 'string') return { choice: value, named: false };
  if (isRecord(value) && typeof value['name'] === 'string') return { choice: value['name'], named: true };
  return { choice: 'auto', named: false };
}

function readFormat(text: unknown): ChatRequestView['responseFormat'] {
  const format = isRecord(text) ? text['format'] : undefined;
  if (!isRecord(format)) return undefined;
  if (format['type'] === 'json_object') return { type: 'json_object', schema: undefined };
  if (format['type'] !== 'json_schema') return undefined;
  return { type: 'json_schema', schema: format['schema'] };
}
