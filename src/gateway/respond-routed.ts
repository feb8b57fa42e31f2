import type { Balancer, ContinuationPrefix, ExecuteResult } from '../balance/balancer.js';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { KeyAdmission } from '../policy/api-keys.js';
import type { Clock } from '../shared/clock.js';
import type { ChatChunk, Usage } from '../upstream/chat-chunk.js';
import { assembleChatCompletion, assembleTextCompletion } from './assemble-completion.js';
import type { GatewayResponse, RequestContext } from './gateway.js';
import type { RouteDecision } from '../routing/decide-route.js';
import type { EndOfResponse, RequestTracker } from './request-tracker.js';
import { toRouteHeaders } from '../routing/route-headers.js';
import { toUnreportedPromptTokens } from './spend-bound.js';
import type { UpstreamCall, UpstreamPath } from './upstream-call.js';
import { toSpentTokens } from './spent-tokens.js';
import { toGeneratedChars, toSse, type SseFramer } from './to-sse.js';

/** How an answer that is neither a chat nor a legacy completion is written (the Responses API). */
export interface AnswerShape {
  /** The JSON answer of a buffered request. */
  toBody(result: ExecuteResult): Record<string, unknown>;
  /** The SSE framing of a streamed one. */
  toFramer(result: ExecuteResult): SseFramer;
}

export interface RoutedRequest {
  balancer: Balancer;
  clock: Clock;
  decision: RouteDecision;
  context: RequestContext;
  tracker: RequestTracker;
  admission: KeyAdmission | undefined;
  path: UpstreamPath;
  /** The path of one deployment, when it differs per deployment. @default path */
  toPath: ((deployment: DeploymentConfig) => string) | undefined;
  kind: UpstreamCall;
  /** Writes the answer instead of the chat or legacy completion shape. */
  shape: AnswerShape | undefined;
  stream: boolean;
  includeUsage: boolean;
  toBody: (deployment: DeploymentConfig) => string;
  /** Continues a broken answer on another deployment (chat requests that allow it). */
  toContinuationBody: ((deployment: DeploymentConfig, delivered: ContinuationPrefix) => string) | undefined;
  /** After the answer is committed (session ladder). */
  onCommitted: () => Promise<void>;
  /** Internal detail in an in-band error: admin key or open mode. */
  revealInternal: boolean;
  /**
   * A non-streamed answer that is not a completion (embeddings): the upstream answers with one JSON
   * body, and this builds the client's body and the usage to report from it.
   */
  toAnswer?: (result: ExecuteResult) => { body: Record<string, unknown>; usage: Usage | undefined };
}

/** Runs the balancer for a decided route and shapes the client's answer: JSON, or SSE from the commit point. */
export async function respondRouted(routed: RoutedRequest): Promise<GatewayResponse> {
  const { decision, context, tracker, clock } = routed;
  const finish = (end: EndOfResponse & { status: number }): void => {
    tracker.end(end);
    void routed.admission?.finish(toSpentTokens(end, toUnreportedPromptTokens(decision)));
  };
  // no answer: nothing was generated, and the prompt is charged at autotier's count
  const unanswered = { promptTokens: decision.promptTokens, completionTokens: 0 };
  let result;
  try {
    result = await routed.balancer.execute({
      plan: decision.plan,
      path: routed.path,
      ...(routed.toPath === undefined ? {} : { toPath: routed.toPath }),
      toBody: routed.toBody,
      signal: context.signal,
      requestId: context.requestId,
      commit: routed.stream ? 'first_content' : 'complete',
      startedAt: context.receivedAt,
      promptTokens: decision.promptTokens,
      ...(context.trace === undefined ? {} : { span: context.trace }),
      ...(routed.toAnswer === undefined ? {} : { answer: 'json' as const }),
      ...(routed.toContinuationBody === undefined ? {} : { toContinuationBody: routed.toContinuationBody }),
    });
  } catch (error) {
    void routed.admission?.finish(unanswered);
    throw error;
  }
  tracker.setResult(result);
  await routed.onCommitted();
  const headers = toRouteHeaders({
    decision,
    result,
    overheadMs: clock.now() - context.receivedAt - result.upstreamMs,
    requestId: context.requestId,
  });
  // a client that takes none of the answer for the tier's idle limit is cut (http/write-answer.ts)
  const stallMs = decision.plan.timeouts.idle_ms;
  if (routed.stream) {
    const events = toSse({
      result,
      includeUsage: routed.includeUsage,
      requestId: context.requestId,
      onEnd: (end) => finish(Object.assign({}, end, { status: 200 })),
      collectText: tracker.logsContent(),
      revealInternal: routed.revealInternal,
      signal: context.signal,
      ...(routed.shape === undefined ? {} : { framer: routed.shape.toFramer(result) }),
    });
    return { kind: 'stream', headers, events, stallMs };
  }
  if (routed.toAnswer !== undefined) {
    let answer;
    try {
      answer = routed.toAnswer(result);
    } catch (error) {
      void routed.admission?.finish(unanswered);
      throw error;
    }
    finish({
      status: 200,
      usage: answer.usage,
      generatedChars: 0,
      completionText: undefined,
      error: undefined,
    });
    return { kind: 'json', status: 200, headers, body: answer.body, stallMs };
  }
  const chunks = result.head.map((event) => event.chunk);
  if (routed.shape !== undefined) {
    const body = routed.shape.toBody(result);
    finish({
      status: 200,
      usage: toLastUsage(chunks),
      generatedChars: chunks.reduce((sum, chunk) => sum + toGeneratedChars(chunk), 0),
      completionText: tracker.logsContent() ? toContentText(chunks) : undefined,
      error: undefined,
    });
    return { kind: 'json', status: 200, headers, body, stallMs };
  }
  const body = routed.kind === 'chat' ? assembleChatCompletion(chunks) : assembleTextCompletion(chunks);
  // the switch to another deployment, as a stream's final chunk shows it
  if (result.continuations.length > 0) body['autotier'] = { continuations: result.continuations };
  const generatedChars = chunks.reduce((sum, chunk) => sum + toGeneratedChars(chunk), 0);
  const completionText = tracker.logsContent() ? toCompletionText(body) : undefined;
  finish({
    status: 200,
    usage: body['usage'] as Usage | undefined,
    generatedChars,
    completionText,
    error: undefined,
  });
  return { kind: 'json', status: 200, headers, body, stallMs };
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
