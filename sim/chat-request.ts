import type { ChatMessage } from '../src/shared/chat.js';
import { isRecord } from './json-from-schema.js';

/** A function tool as the simulator reads it from `tools`. */
export interface SimTool {
  name: string;
  parameters: unknown;
}

/** The fields of a chat completion request that change the simulated reply; read leniently. */
export interface ChatRequestView {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  includeUsage: boolean;
  /** Number of choices. @default 1 */
  n: number;
  /** `max_completion_tokens`, else `max_tokens`, as vLLM reads them. */
  maxTokens: number | undefined;
  logprobs: boolean;
  topLogprobs: number;
  /** `json_object`, `json_schema` or undefined for plain text. */
  responseFormat: { type: 'json_object' | 'json_schema'; schema: unknown } | undefined;
  tools: SimTool[];
  /** 'auto' | 'none' | 'required' or the name of a forced function. */
  toolChoice: string;
  namedToolChoice: boolean;
  parallelToolCalls: boolean;
  enableThinking: boolean;
  /**
   * `continue_final_message: true`: the final assistant message's text, which the reply continues
   * (undefined when not asked). See `continuationProblem` for a request that asks wrongly.
   */
  continuePrefix: string | undefined;
  /** Why vLLM would refuse the continuation fields as sent, or undefined. */
  continuationProblem: string | undefined;
}

export function toChatRequestView(body: Record<string, unknown>): ChatRequestView {
  const toolChoice = readToolChoice(body['tool_choice']);
  const kwargs = body['chat_template_kwargs'];
  const streamOptions = body['stream_options'];
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    messages: Array.isArray(body['messages']) ? body['messages'].filter(isRecord).map(toMessage) : [],
    stream: body['stream'] === true,
    includeUsage: isRecord(streamOptions) && streamOptions['include_usage'] === true,
    n: toPositiveInteger(body['n']) ?? 1,
    maxTokens: toPositiveInteger(body['max_completion_tokens']) ?? toPositiveInteger(body['max_tokens']),
    logprobs: body['logprobs'] === true,
    topLogprobs: toPositiveInteger(body['top_logprobs']) ?? 0,
    responseFormat: readResponseFormat(body['response_format']),
    tools: Array.isArray(body['tools']) ? body['tools'].flatMap(readTool) : [],
    toolChoice: toolChoice.choice,
    namedToolChoice: toolChoice.named,
    parallelToolCalls: body['parallel_tool_calls'] !== false,
    enableThinking: isRecord(kwargs) && kwargs['enable_thinking'] === true,
    ...readContinuation(body),
  };
}

/** vLLM's rules: not both flags, and only an assistant message (with text) can be continued. */
function readContinuation(
  body: Record<string, unknown>,
): Pick<ChatRequestView, 'continuePrefix' | 'continuationProblem'> {
  if (body['continue_final_message'] !== true)
    return { continuePrefix: undefined, continuationProblem: undefined };
  if (body['add_generation_prompt'] !== false)
    return {
      continuePrefix: undefined,
      continuationProblem: 'Cannot set both `continue_final_message` and `add_generation_prompt` to True.',
    };
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  const last: unknown = messages.at(-1);
  if (!isRecord(last) || last['role'] !== 'assistant' || typeof last['content'] !== 'string')
    return {
      continuePrefix: undefined,
      continuationProblem:
        'continue_final_message is set but the final message is not an assistant message with text content.',
    };
  return { continuePrefix: last['content'], continuationProblem: undefined };
}

export function toPositiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function toMessage(value: Record<string, unknown>): ChatMessage {
  return { ...value, role: typeof value['role'] === 'string' ? value['role'] : '' };
}

function readToolChoice(value: unknown): { choice: string; named: boolean } {
  if (typeof value === 'string') return { choice: value, named: false };
  if (isRecord(value) && isRecord(value['function']) && typeof value['function']['name'] === 'string') {
    return { choice: value['function']['name'], named: true };
  }
  return { choice: 'auto', named: false };
}

function readTool(value: unknown): SimTool[] {
  if (!isRecord(value) || !isRecord(value['function'])) return [];
  const definition = value['function'];
  return typeof definition['name'] === 'string'
    ? [{ name: definition['name'], parameters: definition['parameters'] }]
    : [];
}

function readResponseFormat(value: unknown): ChatRequestView['responseFormat'] {
  if (!isRecord(value)) return undefined;
  if (value['type'] === 'json_object') return { type: 'json_object', schema: undefined };
  if (value['type'] !== 'json_schema') return undefined;
  const jsonSchema = value['json_schema'];
  return { type: 'json_schema', schema: isRecord(jsonSchema) ? jsonSchema['schema'] : undefined };
}
