/** The fields of an OpenAI `chat.completion.chunk` that autotier reads; everything else passes through. */
export interface ChunkDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDelta[];
  [key: string]: unknown;
}

export interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index?: number;
  delta?: ChunkDelta;
  /** Legacy completions stream `text` instead of `delta`. */
  text?: string;
  finish_reason?: string | null;
  logprobs?: unknown;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [key: string]: unknown;
}

export interface ChatChunk {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: ChunkChoice[];
  usage?: Usage | null;
  error?: unknown;
  [key: string]: unknown;
}

/** True when a chunk carries answer content: text, reasoning or a tool call, not just a role. */
export function hasContent(chunk: ChatChunk): boolean {
  for (const choice of chunk.choices ?? []) {
    if (typeof choice.text === 'string' && choice.text.length > 0) return true;
    const delta = choice.delta;
    if (delta === undefined) continue;
    if (typeof delta.content === 'string' && delta.content.length > 0) return true;
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content.length > 0) return true;
    if (typeof delta.reasoning === 'string' && delta.reasoning.length > 0) return true;
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) return true;
  }
  return false;
}

/** True when every choice of the chunk has a finish_reason (n > 1 finishes per choice). */
export function toFinishedIndexes(chunk: ChatChunk): number[] {
  const finished: number[] = [];
  for (const choice of chunk.choices ?? []) {
    if (typeof choice.finish_reason === 'string') finished.push(choice.index ?? 0);
  }
  return finished;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isDelta = (delta: unknown): boolean => delta === undefined || isObject(delta);

/**
 * True when a parsed event has the shape every reader of a chunk relies on: an object whose `choices`,
 * if given, is a list of objects, each `delta` (if given) an object. An upstream is not trusted to send
 * it: `{"choices": [null]}` or a string delta would otherwise throw a TypeError in those readers.
 */
export function isChatChunk(value: unknown): value is ChatChunk {
  if (!isObject(value)) return false;
  const { choices } = value;
  if (choices === undefined || choices === null) return true;
  return Array.isArray(choices) && choices.every((choice) => isObject(choice) && isDelta(choice['delta']));
}
