import type { ServerResponse } from 'node:http';
import type { BackendContext, Exchange } from './backend-context.js';
import { toContextLengthError, type SimError } from './error-body.js';
import type { FaultSpec } from './fault-spec.js';
import type { EndpointRequest, GenerationEndpoint } from './generation-endpoints.js';
import { readJsonObject } from './read-body.js';
import { applyEarlyFault } from './request-faults.js';
import { sendError } from './respond.js';
import { selectFault } from './select-fault.js';
import { sendCompletion } from './send-completion.js';
import type { ResponderReply } from './types.js';

const NOT_AN_OBJECT: SimError = { status: 400, message: 'Request body must be a JSON object.' };

/**
 * Answers one chat or legacy completion request, in vLLM's order where it has one: early faults
 * (errors, resets, silence), then the model check (404), the context-length check (400), the scripted
 * responder, and finally the reply (where the stream faults strike).
 */
export async function handleGeneration(
  backend: BackendContext,
  endpoint: GenerationEndpoint,
  exchange: Exchange,
): Promise<void> {
  const { request, response } = exchange;
  const body = await readJsonObject(request).catch(() => null);
  if (body === null) return; // the client went away mid-body
  if (body === undefined) return sendError(response, NOT_AN_OBJECT);
  const prepared = endpoint.read(body);
  const settings = backend.settings();
  const {
    model: requested,
    fault,
    unknownHeader,
  } = selectFault(request.headers, prepared.model, settings.fault);
  if (unknownHeader !== undefined) return sendUnknownFault(response, unknownHeader);
  if (fault !== undefined && isSettledByFault(backend, { response, fault, prepared })) return;
  const model = requested === '' ? (backend.models[0] ?? '') : requested;
  const invalid = validate(backend, prepared, model);
  if (invalid !== undefined) return sendError(response, invalid);
  const reply = settings.responder?.({ body, headers: request.headers });
  if (reply?.status !== undefined && reply.status >= 400)
    return sendError(response, toScriptedError(reply, reply.status));
  await sendCompletion(backend, exchange, {
    endpoint,
    prepared,
    model,
    fault,
    reply,
    latency: settings.latency,
  });
}

interface FaultedRequest {
  response: ServerResponse;
  fault: FaultSpec;
  prepared: EndpointRequest;
}

/** Counts the selected fault; true when it settles the request before any reply. */
function isSettledByFault(backend: BackendContext, { response, fault, prepared }: FaultedRequest): boolean {
  backend.stats.countFault(fault.name);
  const toContextError = (wording: 'current' | 'legacy'): SimError =>
    toContextLengthError({
      window: backend.contextWindow,
      promptTokens: prepared.promptTokens,
      maxTokens: prepared.maxTokens,
      wording,
    });
  return applyEarlyFault({ response, fault, state: backend.faultState, toContextError });
}

/**
 * vLLM's checks: a served model name (404), the chat template's continuation rules (400; a backend
 * without the feature refuses it), then prompt + max_tokens within the window (400).
 */
function validate(backend: BackendContext, prepared: EndpointRequest, model: string): SimError | undefined {
  if (!backend.models.includes(model)) {
    return { status: 404, message: `The model \`${model}\` does not exist.`, param: 'model' };
  }
  if (prepared.problem !== undefined) return { status: 400, message: prepared.problem };
  if (prepared.continues && !backend.continuation)
    return {
      status: 400,
      message: 'continue_final_message is not supported by this server',
      param: 'continue_final_message',
    };
  const { promptTokens, maxTokens } = prepared;
  const window = backend.contextWindow;
  if (promptTokens < window && promptTokens + (maxTokens ?? 0) <= window) return undefined;
  return toContextLengthError({ window, promptTokens, maxTokens, wording: 'current' });
}

function toScriptedError(reply: ResponderReply, status: number): SimError {
  return { status, message: reply.errorMessage ?? `Simulated error ${status}` };
}

function sendUnknownFault(response: ServerResponse, header: string): void {
  sendError(response, { status: 400, message: `Unknown x-sim-fault: ${header}`, param: 'x-sim-fault' });
}
