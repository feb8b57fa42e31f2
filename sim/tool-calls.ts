import type { ChatRequestView, SimTool } from './chat-request.js';
import { toJsonFromSchema } from './json-from-schema.js';

export interface ToolCallIntent {
  name: string;
  /** JSON text of the arguments. */
  arguments: string;
}

/**
 * The tool calls a default reply makes: none unless `tools` is non-empty, `tool_choice` is not
 * "none" and the last message is from the user. A named `tool_choice` calls that tool; otherwise the
 * first tool, or the first two when `parallel_tool_calls` is not false and there are two or more.
 */
export function planToolCalls(view: ChatRequestView): ToolCallIntent[] {
  if (view.tools.length === 0 || view.toolChoice === 'none') return [];
  if (view.messages.at(-1)?.role !== 'user') return [];
  if (view.namedToolChoice) {
    const named = view.tools.find((tool) => tool.name === view.toolChoice);
    return [toIntent(named ?? { name: view.toolChoice, parameters: undefined })];
  }
  const count = view.parallelToolCalls && view.tools.length >= 2 ? 2 : 1;
  return view.tools.slice(0, count).map(toIntent);
}

function toIntent(tool: SimTool): ToolCallIntent {
  const values = tool.parameters === undefined ? {} : toJsonFromSchema(tool.parameters);
  return { name: tool.name, arguments: JSON.stringify(values) };
}
