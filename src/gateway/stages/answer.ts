import type { ChatChunk, Usage } from '../../upstream/chat-chunk.js';
import { toRouteHeaders } from '../../routing/route-headers.js';
import type { Clock } from '../../shared/clock.js';
import { assembleChatCompletion, assembleTextCompletion } from '../assemble-completion.js';
import { need, type Exchange, type Outcome } from '../exchange.js';
import type { RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import type { Stage } from '../stages.js';
import { toGeneratedChars, toSse } from '../to-sse.js';

/**
 * Shapes the committed answer: SSE from the commit point (the stream settles the request when it
 * ends, see toSse), or one JSON body: a chat or legacy completion assembled from the chunks, the
 * endpoint's own shape (Responses) or its own answer (embeddings). The route headers say what was
 * decided and what it cost.
 */
export function answerStage<T extends StreamFlags>(
  endpoint: RoutedEndpoint<T>,
  services: { clock: Clock; settle: (exchange: Exchange, outcome: Outcome) => void },
): Stage<T> {
  return {
    name: 'answer',
    run(exchange) {
      const request = need(exchange.request, 'request', 'answer');
      const decision = need(exchange.decision, 'decision', 'answer');
      const result = need(exchange.result, 'result', 'answer');
      const headers = toRouteHeaders({
        decision,
        result,
        overheadMs: services.clock.now() - exchange.receivedAt - result.upstreamMs,
        requestId: exchange.requestId,
      });
      // a client that takes none of the answer for the tier's idle limit is cut (http/write-answer.ts)
      const stallMs = decision.plan.timeouts.idle_ms;
      const logsContent = exchange.prompt !== undefined;
      const shape = endpoint.toShape?.(request, exchange);
      if (exchange.stream) {
        const events = toSse({
          result,
          includeUsage: request.stream_options?.include_usage === true,
          requestId: exchange.requestId,
          onEnd: (end) => {
            exchange.usage = {
              usage: end.usage,
              generatedChars: end.generatedChars,
              completionText: end.completionText,
            };
            services.settle(exchange, { status: 200, error: end.error });
          },
          collectText: logsContent,
          revealInternal: exchange.revealInternal,
          signal: exchange.signal,
          ...(shape === undefined ? {} : { framer: shape.toFramer(result) }),
        });
        exchange.answer = { kind: 'stream', headers, events, stallMs };
        return;
      }
      if (endpoint.toAnswer !== undefined) {
        const answer = endpoint.toAnswer(request)(result);
        exchange.usage = { usage: answer.usage, generatedChars: 0, completionText: undefined };
        exchange.answer = { kind: 'json', status: 200, headers, body: answer.body, stallMs };
        return;
      }
      const chunks = result.head.map((event) => event.chunk);
      const generatedChars = chunks.reduce((sum, chunk) => sum + toGeneratedChars(chunk), 0);
      if (shape !== undefined) {
        exchange.usage = {
          usage: toLastUsage(chunks),
          generatedChars,
          completionText: logsContent ? toContentText(chunks) : undefined,
        };
        exchange.answer = { kind: 'json', status: 200, headers, body: shape.toBody(result), stallMs };
        return;
      }
      const body = endpoint.kind === 'chat' ? assembleChatCompletion(chunks) : assembleTextCompletion(chunks);
      // the switch to another deployment, as a stream's final chunk shows it
      if (result.continuations.length > 0) body['autotier'] = { continuations: result.continuations };
      exchange.usage = {
        usage: body['usage'] as Usage | undefined,
        generatedChars,
        completionText: logsContent ? toCompletionText(body) : undefined,
      };
      exchange.answer = { kind: 'json', status: 200, headers, body, stallMs };
    },
  };
}

/** The answer text of an assembled completion (first choice), for content logging. */
function toCompletionText(body: Record<string, unknown>): string {
  const choice = (body['choices'] as { message?: { content?: unknown }; text?: unknown }[] | undefined)?.[0];
  const text = choice?.message?.content ?? choice?.text;
  return typeof text === 'string' ? text : '';
}

/** The last usage an upstream reported among `chunks`. */
function toLastUsage(chunks: readonly ChatChunk[]): Usage | undefined {
  for (let index = chunks.length - 1; index >= 0; index -= 1) {
    const usage = chunks[index]?.usage;
    if (usage !== undefined && usage !== null) return usage;
  }
  return undefined;
}

/** The answer text of choice 0, for content logging. */
function toContentText(chunks: readonly ChatChunk[]): string {
  let text = '';
  for (const chunk of chunks)
    for (const choice of chunk.choices ?? [])
      if ((choice.index ?? 0) === 0) text += choice.delta?.content ?? '';
  return text;
}
