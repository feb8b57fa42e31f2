import type { ChatPlan, ChoicePlan } from './chat-plan.js';
import type { ResponseMeta } from './chat-stream-frames.js';
import { toTokenLogprob } from './logprobs.js';

/** The non-stream `chat.completion` body, in vLLM's ChatCompletionResponse field order. */
export function toChatResponseBody(plan: ChatPlan, meta: ResponseMeta): string {
  const completion = plan.completionTokens;
  return JSON.stringify({
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: plan.choices.map((choice, index) => toChoice(choice, index, meta)),
    usage: {
      prompt_tokens: meta.promptTokens,
      total_tokens: meta.promptTokens + completion,
      completion_tokens: completion,
      prompt_tokens_details: null,
    },
    system_fingerprint: null,
    prompt_logprobs: null,
  });
}

function toChoice(choice: ChoicePlan, index: number, meta: ResponseMeta): Record<string, unknown> {
  const content = choice.content.join('');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: choice.toolCalls.length > 0 && content === '' ? null : content,
    tool_calls: choice.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  };
  if (choice.reasoning.length > 0) message['reasoning_content'] = choice.reasoning.join('');
  const topLogprobs = meta.topLogprobs;
  const logprobs =
    topLogprobs === undefined
      ? null
      : { content: choice.content.map((token, position) => toTokenLogprob(token, position, topLogprobs)) };
  return { index, message, logprobs, finish_reason: choice.finishReason, stop_reason: null };
}
