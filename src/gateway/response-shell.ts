import type { Usage } from '../upstream/chat-chunk.js';
import type { ResponsesRequest } from './responses-request.js';

type JsonObject = Record<string, unknown>;

/** Who a response is: its id, Unix time in seconds, and the served model that answered. */
export interface ResponseIdentity {
  id: string;
  createdAt: number;
  model: string;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** Letters and digits of an upstream id, for ids built from it (`resp_`, `msg_`, `fc_`, ...). */
export function toIdBase(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '').slice(-48) || 'autotier';
}

/** Chat usage as Responses usage, with the details the SDKs read (0 when the upstream gave none). */
export function toResponsesUsage(usage: Usage | undefined): JsonObject | null {
  if (usage === undefined) return null;
  const promptDetails = usage['prompt_tokens_details'];
  const completionDetails = usage['completion_tokens_details'];
  const cached = (promptDetails as { cached_tokens?: unknown } | null | undefined)?.cached_tokens;
  const reasoning = (completionDetails as { reasoning_tokens?: unknown } | null | undefined)
    ?.reasoning_tokens;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: typeof cached === 'number' ? cached : 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: typeof reasoning === 'number' ? reasoning : 0 },
    total_tokens: usage.total_tokens,
  };
}

/** The status and incomplete_details of a chat finish reason. */
export function toResponseEnd(finishReason: string | null): {
  status: 'completed' | 'incomplete';
  incompleteDetails: { reason: string } | null;
} {
  if (finishReason === 'length')
    return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  return { status: 'completed', incompleteDetails: null };
}

/**
 * A Response object (https://platform.openai.com/docs/api-reference/responses/object) with the
 * request's settings echoed, as `response.created` shows it and the final answer completes it.
 * `store` is always false: autotier keeps no response.
 */
export function toResponseShell(
  request: ResponsesRequest,
  state: { identity: ResponseIdentity; status: ResponseStatus },
): JsonObject {
  const { identity } = state;
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: null,
    model: identity.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}
