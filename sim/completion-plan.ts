import { toPositiveInteger } from './chat-request.js';
import type { ChatPlan, ChoicePlan, PlanContext } from './chat-plan.js';
import { DEFAULT_COMPLETION_TOKENS, MAX_COMPLETION_TOKENS } from './chat-plan.js';
import { isRecord } from './json-from-schema.js';
import { hashText, splitIntoTokens, toAnswerWords } from './sim-words.js';

/** The fields of a legacy `/v1/completions` request the simulator reads. */
export interface CompletionRequestView {
  model: string;
  /** `prompt` as a string; the first entry when it is an array of strings. */
  prompt: string;
  /** Every prompt: vLLM answers each one `n` times (choice index = prompt index x n + i). */
  prompts: string[];
  suffix: string | undefined;
  stream: boolean;
  includeUsage: boolean;
  n: number;
  maxTokens: number | undefined;
}

export function toCompletionRequestView(body: Record<string, unknown>): CompletionRequestView {
  const prompt = body['prompt'];
  const streamOptions = body['stream_options'];
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    prompt: typeof prompt === 'string' ? prompt : Array.isArray(prompt) ? String(prompt[0] ?? '') : '',
    prompts: typeof prompt === 'string' ? [prompt] : Array.isArray(prompt) ? prompt.map(String) : [''],
    suffix: typeof body['suffix'] === 'string' ? body['suffix'] : undefined,
    stream: body['stream'] === true,
    includeUsage: isRecord(streamOptions) && streamOptions['include_usage'] === true,
    n: toPositiveInteger(body['n']) ?? 1,
    maxTokens: toPositiveInteger(body['max_tokens']),
  };
}

/**
 * Text of a completion, `n` choices for each prompt (as vLLM answers a prompt array): the default
 * answer words, or the responder's content, cut at max_tokens.
 * With a `suffix` the last token becomes the marker ` [suffix:<length>]` so tests see it was passed on.
 */
export function toCompletionPlan(view: CompletionRequestView, context: PlanContext): ChatPlan {
  const choices: ChoicePlan[] = [];
  for (const prompt of view.prompts) {
    const seed = hashText(prompt);
    for (let index = 0; index < view.n; index += 1) {
      const tokens = toCompletionTokens(view, context, seed + index * 31);
      const limited = view.maxTokens !== undefined && tokens.length >= view.maxTokens;
      const content = withSuffixMarker(limited ? tokens.slice(0, view.maxTokens) : tokens, view.suffix);
      const finishReason = context.reply?.finishReason ?? (limited ? 'length' : 'stop');
      choices.push({ reasoning: [], content, toolCalls: [], finishReason });
    }
  }
  return { choices, completionTokens: choices.reduce((sum, choice) => sum + choice.content.length, 0) };
}

function toCompletionTokens(view: CompletionRequestView, context: PlanContext, seed: number): string[] {
  const reply = context.reply?.content;
  if (reply !== undefined) return splitIntoTokens(reply);
  const natural = context.tokensOverride ?? view.maxTokens ?? DEFAULT_COMPLETION_TOKENS;
  return toAnswerWords(context.backendId, seed, Math.min(natural, MAX_COMPLETION_TOKENS));
}

function withSuffixMarker(tokens: string[], suffix: string | undefined): string[] {
  if (suffix === undefined) return tokens;
  return [...tokens.slice(0, -1), ` [suffix:${suffix.length}]`];
}
