import type { ChatChunk, ToolCallDelta, Usage } from '../upstream/chat-chunk.js';

interface AssembledToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

interface ChoiceState {
  content: string;
  reasoning: string;
  text: string;
  toolCalls: AssembledToolCall[];
  finishReason: string | null;
  logprobs: unknown[];
  hasLogprobs: boolean;
}

function toChoiceState(): ChoiceState {
  return {
    content: '',
    reasoning: '',
    text: '',
    toolCalls: [],
    finishReason: null,
    logprobs: [],
    hasLogprobs: false,
  };
}

/**
 * Where a tool-call delta goes: its `index` when that is an existing call or the next one, else a new
 * call at the end. An upstream's index is not trusted as an array index: 1e9 made a sparse array that
 * JSON.stringify wrote out as a billion nulls, and "__proto__" merged into Array.prototype.
 */
function toToolCallIndex(state: ChoiceState, delta: ToolCallDelta): number {
  const { index } = delta;
  const next = state.toolCalls.length;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 && index <= next ? index : next;
}

function mergeToolCalls(state: ChoiceState, deltas: readonly ToolCallDelta[]): void {
  for (const delta of deltas) {
    const index = toToolCallIndex(state, delta);
    const call = (state.toolCalls[index] ??= {
      id: '',
      type: 'function',
      function: { name: '', arguments: '' },
    });
    if (delta.id !== undefined) call.id = delta.id;
    if (delta.type !== undefined) call.type = delta.type;
    if (delta.function?.name !== undefined) call.function.name += delta.function.name;
    if (delta.function?.arguments !== undefined) call.function.arguments += delta.function.arguments;
  }
}

function mergeLogprobs(state: ChoiceState, logprobs: unknown): void {
  if (logprobs === null || logprobs === undefined) return;
  state.hasLogprobs = true;
  const content = (logprobs as { content?: unknown }).content;
  // a loop, not push(...content): spreading 200k entries from an upstream overflows the stack
  if (Array.isArray(content)) for (const entry of content as unknown[]) state.logprobs.push(entry);
}

/** Folds stream chunks into per-choice state; `usage`, `id`, `model` come from whichever chunk has them. */
function fold(chunks: readonly ChatChunk[]): {
  choices: Map<number, ChoiceState>;
  head: ChatChunk;
  usage: Usage | undefined;
} {
  const choices = new Map<number, ChoiceState>();
  let usage: Usage | undefined;
  for (const chunk of chunks) {
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const index = choice.index ?? 0;
      const state = choices.get(index) ?? toChoiceState();
      choices.set(index, state);
      const delta = choice.delta;
      if (typeof delta?.content === 'string') state.content += delta.content;
      if (typeof delta?.reasoning_content === 'string') state.reasoning += delta.reasoning_content;
      if (typeof delta?.reasoning === 'string') state.reasoning += delta.reasoning;
      if (Array.isArray(delta?.tool_calls)) mergeToolCalls(state, delta.tool_calls);
      if (typeof choice.text === 'string') state.text += choice.text;
      if (typeof choice.finish_reason === 'string') state.finishReason = choice.finish_reason;
      mergeLogprobs(state, choice.logprobs);
    }
  }
  return { choices, head: chunks[0] ?? {}, usage };
}

function sortedEntries(choices: Map<number, ChoiceState>): [number, ChoiceState][] {
  return [...choices.entries()].sort((a, b) => a[0] - b[0]);
}

/** A `chat.completion` object built from the chunks of a streamed answer. */
export function assembleChatCompletion(chunks: readonly ChatChunk[]): Record<string, unknown> {
  const { choices, head, usage } = fold(chunks);
  return {
    id: head.id ?? 'chatcmpl-autotier',
    object: 'chat.completion',
    created: head.created ?? 0,
    model: head.model ?? '',
    choices: sortedEntries(choices).map(([index, state]) => ({
      index,
      message: {
        role: 'assistant',
        content: state.content === '' && state.toolCalls.length > 0 ? null : state.content,
        ...(state.reasoning === '' ? {} : { reasoning_content: state.reasoning }),
        ...(state.toolCalls.length === 0 ? {} : { tool_calls: state.toolCalls }),
      },
      logprobs: state.hasLogprobs ? { content: state.logprobs } : null,
      finish_reason: state.finishReason,
    })),
    ...(usage === undefined ? {} : { usage }),
  };
}

/** A legacy `text_completion` object built from the chunks of a streamed completion. */
export function assembleTextCompletion(chunks: readonly ChatChunk[]): Record<string, unknown> {
  const { choices, head, usage } = fold(chunks);
  return {
    id: head.id ?? 'cmpl-autotier',
    object: 'text_completion',
    created: head.created ?? 0,
    model: head.model ?? '',
    choices: sortedEntries(choices).map(([index, state]) => ({
      index,
      text: state.text,
      logprobs: null,
      finish_reason: state.finishReason,
    })),
    ...(usage === undefined ? {} : { usage }),
  };
}
