import type { FaultSpec } from './fault-spec.js';
import type { Exchange, BackendContext } from './backend-context.js';
import type { EndpointRequest, GenerationEndpoint } from './generation-endpoints.js';
import { runNonStream } from './respond.js';
import { readTokensHeader } from './select-fault.js';
import { SSE_HEADERS, runStream } from './stream-runner.js';
import { toStreamScript } from './stream-script.js';
import { toStreamTiming } from './stream-timing.js';
import type { ResponderReply, SimLatency } from './types.js';

/** A validated request ready to be answered. */
export interface CompletionJob {
  endpoint: GenerationEndpoint;
  prepared: EndpointRequest;
  /** The served model name the reply reports. */
  model: string;
  fault: FaultSpec | undefined;
  reply: ResponderReply | undefined;
  latency: SimLatency;
}

/** Plans the reply, then streams it or sends it whole after the full generation time. */
export async function sendCompletion(
  backend: BackendContext,
  exchange: Exchange,
  job: CompletionJob,
): Promise<void> {
  const { prepared, fault } = job;
  const { response, signal } = exchange;
  const plan = prepared.plan({
    backendId: backend.backendId,
    reasoningMode: backend.reasoningMode,
    tokensOverride: readTokensHeader(exchange.request.headers) ?? backend.answerTokens,
    reply: job.reply,
    nextId: backend.nextId,
  });
  const meta = {
    id: backend.nextId(job.endpoint.idPrefix),
    created: Math.floor(backend.clock.now() / 1000),
    model: job.model,
    promptTokens: job.reply?.promptTokens ?? prepared.promptTokens,
    includeUsage: prepared.includeUsage,
    topLogprobs: prepared.topLogprobs,
  };
  const extraDelayMs = job.reply?.delayMs ?? 0;
  const timing = toStreamTiming({ latency: job.latency, fault, extraDelayMs, random: backend.random });
  if (!prepared.stream) {
    const delayMs = timing.firstTokenDelayMs + timing.tokenIntervalMs * plan.completionTokens;
    const body = prepared.toBody(plan, meta);
    return runNonStream({ response, body, delayMs, fault, sleep: backend.sleep, signal });
  }
  if (fault?.name === 'headers_then_nothing') {
    response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
    return;
  }
  const script = toStreamScript(prepared.toFrames(plan, meta), fault);
  return runStream({
    response,
    script,
    timing,
    sleep: backend.sleep,
    signal,
    onWritten: (bytes) => backend.stats.countStreamed(bytes),
  });
}
