import { toMessageText } from '../src/shared/chat.js';
import type { ChatRequestView } from './chat-request.js';
import { toJsonFromSchema } from './json-from-schema.js';
import {
  REASONING_WORDS,
  hashText,
  splitIntoFragments,
  splitIntoTokens,
  toAnswerWords,
} from './sim-words.js';
import { planToolCalls, type ToolCallIntent } from './tool-calls.js';
import type { ReasoningMode, ResponderReply } from './types.js';

/** Completion tokens of a default reply when neither max_tokens nor x-sim-tokens is given. */
export const DEFAULT_COMPLETION_TOKENS = 16;
/** Upper bound of a generated reply, in tokens, so a huge max_tokens cannot flood a test. */
export const MAX_COMPLETION_TOKENS = 8192;
/** Characters per streamed fragment of JSON content and tool-call arguments. */
const FRAGMENT_CHARS = 8;

export interface PlannedToolCall extends ToolCallIntent {
  id: string;
  fragments: string[];
}

/** Everything one choice will emit, as simulated tokens. */
export interface ChoicePlan {
  /** Tokens for `reasoning_content` (empty unless thinking is on in that mode). */
  reasoning: string[];
  content: string[];
  toolCalls: PlannedToolCall[];
  finishReason: string;
}

export interface ChatPlan {
  choices: ChoicePlan[];
  completionTokens: number;
}

export interface PlanContext {
  backendId: string;
  reasoningMode: ReasoningMode;
  /** The `x-sim-tokens` header: the natural reply length in tokens. */
  tokensOverride: number | undefined;
  reply: ResponderReply | undefined;
  /** Makes a unique id with the given prefix, e.g. `chatcmpl-tool-`. */
  nextId: (prefix: string) => string;
}

export function toChatPlan(view: ChatRequestView, context: PlanContext): ChatPlan {
  // a continued assistant message is not the prompt: the reply is seeded by the message before it
  const prompt = view.messages.at(view.continuePrefix === undefined ? -1 : -2);
  const seed = hashText(toMessageText(prompt?.content));
  const choices: ChoicePlan[] = [];
  let completionTokens = 0;
  for (let index = 0; index < view.n; index += 1) {
    const choice = toChoicePlan(view, context, seed + index * 31);
    const toolTokens = choice.toolCalls.reduce((sum, call) => sum + call.fragments.length + 1, 0);
    completionTokens += choice.reasoning.length + choice.content.length + toolTokens;
    choices.push(choice);
  }
  return { choices, completionTokens };
}

function toChoicePlan(view: ChatRequestView, context: PlanContext, seed: number): ChoicePlan {
  const { reply } = context;
  if (view.continuePrefix !== undefined) {
    // the template closes an empty think block before the prefill: no reasoning, no tool call
    const answer = toContinuation(view, context, { prefix: view.continuePrefix, seed });
    return {
      reasoning: [],
      content: answer.tokens,
      toolCalls: [],
      finishReason: reply?.finishReason ?? answer.finishReason,
    };
  }
  const intents = reply?.toolCalls ?? (reply?.content === undefined ? planToolCalls(view) : []);
  const toolCalls = intents.map((intent) => toPlannedCall(intent, context));
  const thinking = view.enableThinking ? context.reasoningMode : 'none';
  // as in vLLM, reasoning tokens count against max_tokens (and a small one cuts the reasoning itself)
  const limit = view.maxTokens ?? Infinity;
  const reasoning = thinking === 'reasoning_content' ? REASONING_WORDS.slice(0, limit) : [];
  const inline =
    thinking === 'inline' ? ['<think>\n', ...REASONING_WORDS, '\n</think>\n\n'].slice(0, limit) : [];
  const spent = reasoning.length + inline.length;
  const answer =
    toolCalls.length > 0 ? { tokens: [], finishReason: 'stop' } : toAnswer(view, context, { seed, spent });
  const toolFinish = view.namedToolChoice && reply?.toolCalls === undefined ? 'stop' : 'tool_calls';
  const finishReason = reply?.finishReason ?? (toolCalls.length > 0 ? toolFinish : answer.finishReason);
  return { reasoning, content: [...inline, ...answer.tokens], toolCalls, finishReason };
}

function toPlannedCall(intent: ToolCallIntent, context: PlanContext): PlannedToolCall {
  const fragments = splitIntoFragments(intent.arguments, FRAGMENT_CHARS);
  return { ...intent, id: context.nextId('chatcmpl-tool-'), fragments };
}

function toAnswer(
  view: ChatRequestView,
  context: PlanContext,
  budget: { seed: number; spent: number },
): { tokens: string[]; finishReason: string } {
  const { seed, spent } = budget;
  if (context.reply?.content !== undefined)
    return truncate(toRepeated(splitIntoTokens(context.reply.content), context.reply.repeat), view, spent);
  if (view.responseFormat !== undefined) return { tokens: toJsonTokens(view, context), finishReason: 'stop' };
  const natural = Math.min(
    context.tokensOverride ?? view.maxTokens ?? DEFAULT_COMPLETION_TOKENS,
    MAX_COMPLETION_TOKENS,
  );
  return truncate(toAnswerWords(context.backendId, seed, natural), view, spent);
}

/** `tokens` `times` over (the same strings, not copies). */
function toRepeated(tokens: string[], times = 1): string[] {
  if (times <= 1) return tokens;
  const repeated: string[] = [];
  for (let run = 0; run < times; run += 1) for (const token of tokens) repeated.push(token);
  return repeated;
}

/**
 * The rest of an answer whose start is the prefill, as a model continues its own text: the reply this
 * backend would give when the prefill is its start (the header "Answer from X:" names whose reply it
 * is, so a continuation elsewhere is word for word what the first backend would have said), else
 * filler. Its natural length counts the prefill's tokens; max_tokens counts only the new ones.
 */
function toContinuation(
  view: ChatRequestView,
  context: PlanContext,
  input: { prefix: string; seed: number },
): { tokens: string[]; finishReason: string } {
  const { prefix } = input;
  const prefixTokens = splitIntoTokens(prefix).length;
  const natural = Math.min(
    context.tokensOverride ??
      (view.maxTokens === undefined ? DEFAULT_COMPLETION_TOKENS : prefixTokens + view.maxTokens),
    MAX_COMPLETION_TOKENS,
  );
  const author = /^Answer from (\S+):/.exec(prefix)?.[1] ?? context.backendId;
  const full =
    context.reply?.content === undefined
      ? toAnswerWords(author, input.seed, natural)
      : splitIntoTokens(context.reply.content);
  const rest = toTokensAfter(full, prefix);
  const tokens = rest ?? toAnswerWords(author, input.seed, natural + 3).slice(3 + prefixTokens);
  return truncate(tokens, view);
}

/** The tokens of `full` after `prefix` (the rest of a token the prefix ends inside first), or undefined. */
function toTokensAfter(full: readonly string[], prefix: string): string[] | undefined {
  let length = 0;
  for (const [index, token] of full.entries()) {
    if (length === prefix.length) return full.slice(index);
    if (length + token.length > prefix.length) {
      const cut = prefix.length - length;
      return token.slice(0, cut) === prefix.slice(length)
        ? [token.slice(cut), ...full.slice(index + 1)]
        : undefined;
    }
    if (prefix.slice(length, length + token.length) !== token) return undefined;
    length += token.length;
  }
  return length === prefix.length ? [] : undefined;
}

/**
 * Cuts a reply at max_tokens less the `spent` reasoning tokens; finish_reason is "length" when the
 * limit was reached.
 */
function truncate(
  tokens: string[],
  view: ChatRequestView,
  spent = 0,
): { tokens: string[]; finishReason: string } {
  if (view.maxTokens === undefined) return { tokens, finishReason: 'stop' };
  const limit = Math.max(0, view.maxTokens - spent);
  if (tokens.length < limit) return { tokens, finishReason: 'stop' };
  return { tokens: tokens.slice(0, limit), finishReason: 'length' };
}

/** JSON replies ignore max_tokens so the content always parses. */
function toJsonTokens(view: ChatRequestView, context: PlanContext): string[] {
  const format = view.responseFormat;
  const value =
    format?.type === 'json_schema' && format.schema !== undefined
      ? toJsonFromSchema(format.schema)
      : { answer: `Answer from ${context.backendId}` };
  return splitIntoFragments(JSON.stringify(value), FRAGMENT_CHARS);
}
