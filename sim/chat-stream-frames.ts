import type { ChatPlan, ChoicePlan, PlannedToolCall } from './chat-plan.js';
import { toTokenLogprob } from './logprobs.js';
import { interleave, toEvent, toUsageJson, type StreamFrames } from './stream-frames.js';

/** Identity of one response, shared by all its chunks. */
export interface ResponseMeta {
  id: string;
  /** Unix time in seconds. */
  created: number;
  model: string;
  promptTokens: number;
  includeUsage: boolean;
  /** Number of `top_logprobs` per token; undefined when logprobs were not asked for. */
  topLogprobs: number | undefined;
}

/** Serializes one chunk of one choice: `delta` JSON, then the rest of the choice's fields. */
type ChoiceChunk = (delta: string, rest?: string) => string;

const OPEN_CHOICE_REST = '"logprobs":null,"finish_reason":null';

/**
 * Builds the chat stream the way vLLM's chat_completion_stream_generator frames it: a role chunk per
 * choice, one chunk per token, a finish chunk per choice with an empty delta, then the usage chunk
 * (`choices: []`) only when `stream_options.include_usage` is true.
 */
export function toChatStreamFrames(plan: ChatPlan, meta: ResponseMeta): StreamFrames {
  const prefix = `{"id":"${meta.id}","object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"choices":[`;
  const chunks = plan.choices.map(
    (_, index): ChoiceChunk =>
      (delta, rest = OPEN_CHOICE_REST) =>
        toEvent(`${prefix}{"index":${index},"delta":${delta},${rest}}]}`),
  );
  const head = chunks.map((chunk) => chunk('{"role":"assistant","content":""}'));
  const perChoice = plan.choices.map((choice, index) =>
    toChoiceEvents(choice, chunks[index] as ChoiceChunk, meta),
  );
  const tail = plan.choices.map((choice, index) => {
    const finish = JSON.stringify(choice.finishReason);
    return (chunks[index] as ChoiceChunk)(
      '{}',
      `"logprobs":null,"finish_reason":${finish},"stop_reason":null`,
    );
  });
  if (meta.includeUsage) {
    const usage = toUsageJson(meta.promptTokens, plan.completionTokens);
    tail.push(toEvent(`${prefix.slice(0, -1)}[],"usage":${usage}}`));
  }
  const empty = toEvent(`${prefix}{"index":0,"delta":{"content":""},${OPEN_CHOICE_REST}}]}`);
  return { head, content: interleave(perChoice), tail, empty };
}

function toChoiceEvents(choice: ChoicePlan, chunk: ChoiceChunk, meta: ResponseMeta): string[] {
  const events: string[] = [];
  for (const token of choice.reasoning) events.push(chunk(`{"reasoning_content":${JSON.stringify(token)}}`));
  const { topLogprobs } = meta;
  // the same token string again (a repeated reply) reuses its event: framed once, not per token
  let last: { token: string; event: string } | undefined;
  choice.content.forEach((token, position) => {
    if (topLogprobs !== undefined) {
      const delta = `{"content":${JSON.stringify(token)}}`;
      events.push(chunk(delta, toLogprobsRest(token, position, topLogprobs)));
      return;
    }
    if (last?.token !== token) last = { token, event: chunk(`{"content":${JSON.stringify(token)}}`) };
    events.push(last.event);
  });
  choice.toolCalls.forEach((call, callIndex) => events.push(...toToolCallEvents(call, callIndex, chunk)));
  return events;
}

function toLogprobsRest(token: string, position: number, topCount: number): string {
  const entry = JSON.stringify(toTokenLogprob(token, position, topCount));
  return `"logprobs":{"content":[${entry}]},"finish_reason":null`;
}

/** First delta names the call (index, id, type, name, empty arguments); later deltas carry fragments. */
function toToolCallEvents(call: PlannedToolCall, callIndex: number, chunk: ChoiceChunk): string[] {
  const opening = {
    index: callIndex,
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: '' },
  };
  const events = [chunk(JSON.stringify({ tool_calls: [opening] }))];
  for (const fragment of call.fragments) {
    events.push(
      chunk(JSON.stringify({ tool_calls: [{ index: callIndex, function: { arguments: fragment } }] })),
    );
  }
  return events;
}
