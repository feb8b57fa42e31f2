import type { ExecuteResult } from '../balance/balancer.js';
import type { DeploymentConfig, TierConfig } from '../config/table-part-schemas.js';
import { RouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import { createResponseTranslator, type ResponseEvent } from './create-response-translator.js';
import type { ResponsesRequest } from './responses-request.js';
import { toIdBase, toResponseShell } from './response-shell.js';
import type { AnswerShape } from './routed-endpoint.js';
import { toExtraFields } from './shape-body.js';
import type { SseFramer } from './to-sse.js';

type JsonObject = Record<string, unknown>;

/** One typed event as SSE, with its `event:` line as OpenAI and vLLM write them. */
export function toEventFrame(event: ResponseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** True when the answer came from a deployment that served /responses itself. */
function isNative(result: ExecuteResult): boolean {
  return result.deployment.responses;
}

/** What a response is before its first event names it: the request id and the answering deployment. */
function toFallback(
  result: ExecuteResult,
  requestId: string,
): { id: string; createdAt: number; model: string } {
  return {
    id: requestId,
    createdAt: Math.floor(result.firstTokenAt / 1000),
    model: result.deployment.model,
  };
}

/** Translated answers: chat chunks become typed events (create-response-translator.ts). */
function toTranslatingFramer(request: ResponsesRequest, fallback: ReturnType<typeof toFallback>): SseFramer {
  const translator = createResponseTranslator({ request, fallback });
  const frames = (events: ResponseEvent[]): string => events.map(toEventFrame).join('');
  return {
    frame: (event) => frames(translator.push(event.chunk)),
    end: () => frames(translator.finish()),
    fail: (body) => frames(translator.fail(body.error)),
  };
}

/**
 * Native answers: the deployment's own events pass through as they came (with an `event:` line). A
 * failure after the commit point ends the stream as OpenAI does, with an `error` event and
 * `response.failed`, numbered after the last upstream event.
 */
function toNativeFramer(request: ResponsesRequest, fallback: ReturnType<typeof toFallback>): SseFramer {
  let next = 0;
  const identity = {
    id: `resp_${toIdBase(fallback.id)}`,
    createdAt: fallback.createdAt,
    model: fallback.model,
  };
  return {
    frame: (event) => {
      const { chunk } = event;
      const sequence = chunk['sequence_number'];
      if (typeof sequence === 'number') next = Math.max(next, sequence + 1);
      if (chunk['event_type'] === 'response.created') {
        identity.id = chunk.id ?? identity.id;
        identity.model = chunk.model ?? identity.model;
        identity.createdAt = chunk.created ?? identity.createdAt;
      }
      const type = typeof chunk['event_type'] === 'string' ? chunk['event_type'] : 'message';
      // an event the upstream split over several data lines keeps one data line each
      const data = event.data.includes('\n') ? event.data.replaceAll('\n', '\ndata: ') : event.data;
      return `event: ${type}\ndata: ${data}\n\n`;
    },
    end: () => '',
    fail: (body) => {
      const { code, message, param } = body.error;
      const response = Object.assign(toResponseShell(request, { identity, status: 'failed' }), {
        error: { code, message },
      });
      return [
        toEventFrame({ type: 'error', sequence_number: next, code, message, param }),
        toEventFrame({ type: 'response.failed', sequence_number: next + 1, response }),
      ].join('');
    },
  };
}

/** The Response of a native answer: the one its terminal event carries. */
function toNativeBody(head: readonly UpstreamEvent[]): JsonObject {
  for (let index = head.length - 1; index >= 0; index -= 1) {
    const event = head[index];
    const type = event?.chunk['event_type'];
    if (event === undefined || (type !== 'response.completed' && type !== 'response.incomplete')) continue;
    const parsed = JSON.parse(event.data) as { response?: unknown };
    if (typeof parsed.response === 'object' && parsed.response !== null) return parsed.response as JsonObject;
  }
  throw new RouterError({
    code: 'UPSTREAM_MALFORMED',
    message: 'the deployment ended its Responses stream without response.completed',
  });
}

/** How a Responses answer is written, natively or translated, buffered or streamed. */
export function toResponsesShape(request: ResponsesRequest, requestId: string): AnswerShape {
  return {
    toBody: (result) => {
      if (isNative(result)) return toNativeBody(result.head);
      const translator = createResponseTranslator({ request, fallback: toFallback(result, requestId) });
      for (const event of result.head) translator.push(event.chunk);
      translator.finish();
      return translator.response();
    },
    toFramer: (result) =>
      isNative(result)
        ? toNativeFramer(request, toFallback(result, requestId))
        : toTranslatingFramer(request, toFallback(result, requestId)),
  };
}

/**
 * The input without item references: the only ones a request may hold name reasoning items (`rs_`,
 * see to-chat-body.ts), which autotier drops on both paths; the deployment stores nothing to resolve them.
 */
function withoutReferences(input: unknown): unknown {
  if (!Array.isArray(input)) return input;
  return input.filter(
    (item: unknown) =>
      !(typeof item === 'object' && item !== null && (item as JsonObject)['type'] === 'item_reference'),
  );
}

export interface NativeBodyInput {
  /** The client's Responses body, every accepted field included (body-fields.ts). */
  body: JsonObject;
  deployment: DeploymentConfig;
  tierConfig: TierConfig;
  maxTokens: number;
}

/**
 * The body sent to a deployment that serves /responses: the client's, with the served model name,
 * the deployment's and tier's extra params, the capped `max_output_tokens`, the tier's system prompt
 * prefix before `instructions`, always `stream: true` (so failures before the first token fail over,
 * as for chat) and `store: false` (the next request may go to another deployment), and no item
 * references.
 */
export function shapeResponsesBody(input: NativeBodyInput): string {
  const { body, deployment, tierConfig } = input;
  const prefix = tierConfig.system_prompt_prefix;
  const instructions = typeof body['instructions'] === 'string' ? body['instructions'] : undefined;
  const shaped: JsonObject = Object.assign(
    {},
    body,
    toExtraFields(body, [deployment.extra_body, tierConfig.extra_body]),
    {
      model: deployment.model,
      input: withoutReferences(body['input']),
      stream: true,
      store: false,
      max_output_tokens: input.maxTokens,
      instructions:
        prefix === undefined || prefix === ''
          ? instructions
          : instructions === undefined || instructions === ''
            ? prefix
            : `${prefix}\n\n${instructions}`,
    },
  );
  return JSON.stringify(shaped);
}
