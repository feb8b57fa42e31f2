import { toChatPlan, type ChatPlan, type PlanContext } from './chat-plan.js';
import { toChatRequestView } from './chat-request.js';
import { toChatResponseBody } from './chat-response-body.js';
import { toChatStreamFrames, type ResponseMeta } from './chat-stream-frames.js';
import { toCompletionResponseBody, toCompletionStreamFrames } from './completion-frames.js';
import { toCompletionPlan, toCompletionRequestView } from './completion-plan.js';
import { estimatePromptTokens, estimateTextTokens } from './prompt-tokens.js';
import { toResponsesResponseBody, toResponsesStreamFrames } from './responses-frames.js';
import { toResponsesRequestView } from './responses-request.js';
import type { StreamFrames } from './stream-frames.js';

/** One generation request, read and ready to be planned and rendered, whatever the endpoint. */
export interface EndpointRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  maxTokens: number | undefined;
  promptTokens: number;
  /** `top_logprobs` count when logprobs were requested, else undefined. */
  topLogprobs: number | undefined;
  /** The request continues a final assistant message (`continue_final_message`). */
  continues: boolean;
  /** Why the request's continuation fields would be refused (400), or undefined. */
  problem: string | undefined;
  plan(context: PlanContext): ChatPlan;
  toFrames(plan: ChatPlan, meta: ResponseMeta): StreamFrames;
  toBody(plan: ChatPlan, meta: ResponseMeta): string;
}

export interface GenerationEndpoint {
  kind: 'chat' | 'completion' | 'responses';
  /** vLLM's id prefix for this endpoint's responses. */
  idPrefix: string;
  read(body: Record<string, unknown>): EndpointRequest;
}

export const CHAT_ENDPOINT: GenerationEndpoint = {
  kind: 'chat',
  idPrefix: 'chatcmpl-',
  read: (body) => {
    const view = toChatRequestView(body);
    return {
      model: view.model,
      stream: view.stream,
      includeUsage: view.includeUsage,
      maxTokens: view.maxTokens,
      promptTokens: estimatePromptTokens(view.messages),
      topLogprobs: view.logprobs ? view.topLogprobs : undefined,
      continues: view.continuePrefix !== undefined,
      problem: view.continuationProblem,
      plan: (context) => toChatPlan(view, context),
      toFrames: toChatStreamFrames,
      toBody: toChatResponseBody,
    };
  },
};

export const COMPLETION_ENDPOINT: GenerationEndpoint = {
  kind: 'completion',
  idPrefix: 'cmpl-',
  read: (body) => {
    const view = toCompletionRequestView(body);
    return {
      model: view.model,
      stream: view.stream,
      includeUsage: view.includeUsage,
      maxTokens: view.maxTokens,
      promptTokens: view.prompts.reduce((sum, prompt) => sum + estimateTextTokens(prompt), 0),
      topLogprobs: undefined,
      continues: false,
      problem: undefined,
      plan: (context) => toCompletionPlan(view, context),
      toFrames: toCompletionStreamFrames,
      toBody: toCompletionResponseBody,
    };
  },
};

/** vLLM's /v1/responses: planned like a chat request, answered as typed Responses events or a Response. */
export const RESPONSES_ENDPOINT: GenerationEndpoint = {
  kind: 'responses',
  idPrefix: 'resp_',
  read: (body) => {
    const view = toResponsesRequestView(body);
    return {
      model: view.model,
      stream: view.stream,
      includeUsage: true,
      maxTokens: view.maxTokens,
      promptTokens: estimatePromptTokens(view.messages),
      topLogprobs: undefined,
      continues: false,
      problem: undefined,
      plan: (context) => toChatPlan(view, context),
      toFrames: toResponsesStreamFrames,
      toBody: toResponsesResponseBody,
    };
  },
};
