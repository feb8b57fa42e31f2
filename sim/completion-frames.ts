import type { ChatPlan } from './chat-plan.js';
import type { ResponseMeta } from './chat-stream-frames.js';
import { interleave, toEvent, toUsageJson, type StreamFrames } from './stream-frames.js';

/** The legacy completions stream: no role chunk, one `text` chunk per token, then finish chunks. */
export function toCompletionStreamFrames(plan: ChatPlan, meta: ResponseMeta): StreamFrames {
  const prefix = `{"id":"${meta.id}","object":"text_completion","created":${meta.created},"model":${JSON.stringify(meta.model)},"choices":[`;
  const chunk = (index: number, text: string, finish = 'null'): string =>
    toEvent(
      `${prefix}{"index":${index},"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${finish},"stop_reason":null}]}`,
    );
  const perChoice = plan.choices.map((choice, index) => choice.content.map((token) => chunk(index, token)));
  const tail = plan.choices.map((choice, index) => chunk(index, '', JSON.stringify(choice.finishReason)));
  if (meta.includeUsage) {
    const usage = toUsageJson(meta.promptTokens, plan.completionTokens);
    tail.push(toEvent(`${prefix.slice(0, -1)}[],"usage":${usage}}`));
  }
  return { head: [], content: interleave(perChoice), tail, empty: chunk(0, '') };
}

/** The non-stream `text_completion` body. */
export function toCompletionResponseBody(plan: ChatPlan, meta: ResponseMeta): string {
  const completion = plan.completionTokens;
  return JSON.stringify({
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    choices: plan.choices.map((choice, index) => ({
      index,
      text: choice.content.join(''),
      logprobs: null,
      finish_reason: choice.finishReason,
      stop_reason: null,
      prompt_logprobs: null,
    })),
    usage: {
      prompt_tokens: meta.promptTokens,
      total_tokens: meta.promptTokens + completion,
      completion_tokens: completion,
      prompt_tokens_details: null,
    },
  });
}
