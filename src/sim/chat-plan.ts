import { toMessageText } from '../shared/chat.js';
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
  const seed = hashText(toMessageText(view.messages.at(-1)?.content));
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
  const intents = reply?.toolCalls ?? (reply?.content === undefined ? planToolCalls(view) : []);
  const toolCalls = intents.map((intent) => toPlannedCall(intent, context));
  const answer = toolCalls.length > 0 ? { tokens: [], finishReason: 'stop' } : toAnswer(view, context, seed);
  const toolFinish = view.namedToolChoice && reply?.toolCalls === undefined ? 'stop' : 'tool_calls';
  const finishReason = reply?.finishReason ?? (toolCalls.length > 0 ? toolFinish : answer.finishReason);
  const thinking = view.enableThinking ? context.reasoningMode : 'none';
  const reasoning = thinking === 'reasoning_content' ? [...REASONING_WORDS] : [];
  const inline = thinking === 'inline' ? ['<think>\n', ...REASONING_WORDS, '\n</think>\n\n'] : [];
  return { reasoning, content: [...inline, ...answer.tokens], toolCalls, finishReason };
}

function toPlannedCall(intent: ToolCallIntent, context: PlanContext): PlannedToolCall {
  const fragments = splitIntoFragments(intent.arguments, FRAGMENT_CHARS);
  return { ...intent, id: context.nextId('chatcmpl-tool-'), fragments };
}

function toAnswer(
  view: ChatRequestView,
  context: PlanContext,
  seed: number,
): { tokens: string[]; finishReason: string } {
  if (context.reply?.content !== undefined) return truncate(splitIntoTokens(context.reply.content), view);
  if (view.responseFormat !== undefined) return { tokens: toJsonTokens(view, context), finishReason: 'stop' };
  const natural = Math.min(
    context.tokensOverride ?? view.maxTokens ?? DEFAULT_COMPLETION_TOKENS,
    MAX_COMPLETION_TOKENS,
  );
  return truncate(toAnswerWords(context.backendId, seed, natural), view);
}

/** Cuts a reply at max_tokens; finish_reason is "length" when the limit was reached. */
function truncate(tokens: string[], view: ChatRequestView): { tokens: string[]; finishReason: string } {
  if (view.maxTokens === undefined || tokens.length < view.maxTokens) return { tokens, finishReason: 'stop' };
  return { tokens: tokens.slice(0, view.maxTokens), finishReason: 'length' };
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
