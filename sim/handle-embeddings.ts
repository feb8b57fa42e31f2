import { toFloat32Base64 } from '../src/shared/float32-base64.js';
import type { BackendContext, Exchange } from './backend-context.js';
import type { SimError } from './error-body.js';
import { toEmbeddingVector } from './embedding-vector.js';
import { estimateTextTokens } from './prompt-tokens.js';
import { readJsonObject } from './read-body.js';
import { applyEarlyFault } from './request-faults.js';
import { runNonStream, sendError } from './respond.js';
import { selectFault } from './select-fault.js';

type Input = string | readonly number[];

const isTokenIds = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((item) => Number.isInteger(item) && (item as number) >= 0);

/** The inputs of a request (vLLM's four shapes), or undefined when `input` is none of them. */
function toInputs(input: unknown): Input[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((item) => typeof item === 'string')) return input;
  if (isTokenIds(input)) return [input];
  if (input.every(isTokenIds)) return input;
  return undefined;
}

const badRequest = (message: string, param: string | null = null): SimError => ({
  status: 400,
  message,
  param,
});

interface EmbeddingPlan {
  model: string;
  inputs: Input[];
  format: 'float' | 'base64';
  dimensions: number;
  promptTokens: number;
}

/** vLLM's checks in its order: served model (404), request fields (400), each input within the window (400). */
function toPlan(
  backend: BackendContext,
  body: Record<string, unknown>,
  model: string,
): EmbeddingPlan | SimError {
  const embedding = backend.embedding ?? { dimensions: 0, matryoshka: false };
  if (!backend.models.includes(model))
    return { status: 404, message: `The model \`${model}\` does not exist.`, param: 'model' };
  const inputs = toInputs(body['input']);
  if (inputs === undefined) return badRequest('Input should be a valid string or list', 'input');
  const format = body['encoding_format'] ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return badRequest("Input should be 'float' or 'base64'", 'encoding_format');
  const asked = body['dimensions'];
  if (asked !== undefined && asked !== null) {
    if (!embedding.matryoshka)
      return badRequest(
        `Model "${model}" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
      );
    if (!Number.isInteger(asked) || (asked as number) < 1)
      return badRequest('Dimensions must be greater than 0');
    if ((asked as number) > embedding.dimensions)
      return badRequest(`Dimensions ${asked as number} is larger than the model's ${embedding.dimensions}`);
  }
  let promptTokens = 0;
  for (const input of inputs) {
    const tokens = typeof input === 'string' ? estimateTextTokens(input) + 2 : input.length;
    if (tokens > backend.contextWindow)
      return badRequest(
        `This model's maximum context length is ${backend.contextWindow} tokens. However, you requested ${tokens} tokens in the input for embedding generation. Please reduce the length of the input.`,
      );
    promptTokens += tokens;
  }
  const dimensions = typeof asked === 'number' ? asked : embedding.dimensions;
  return { model, inputs, format, dimensions, promptTokens };
}

function toBody(backend: BackendContext, plan: EmbeddingPlan): string {
  const full = backend.embedding?.dimensions ?? plan.dimensions;
  const data = plan.inputs.map((input, index) => {
    const vector = toEmbeddingVector(plan.model, input, { full, dimensions: plan.dimensions });
    return {
      index,
      object: 'embedding',
      embedding: plan.format === 'base64' ? toFloat32Base64(vector) : vector,
    };
  });
  return JSON.stringify({
    id: backend.nextId('embd-'),
    object: 'list',
    created: Math.floor(backend.clock.now() / 1000),
    model: plan.model,
    data,
    usage: { prompt_tokens: plan.promptTokens, total_tokens: plan.promptTokens, completion_tokens: 0 },
  });
}

/**
 * Answers POST /v1/embeddings like vLLM serving an embedding model: deterministic unit vectors (see
 * embedding-vector.ts), `encoding_format` float or base64 (float32 little-endian), `dimensions` for a
 * Matryoshka model only, usage with prompt tokens (ceil(chars / 4) + 2 per text input). Faults apply as
 * to a non-streamed completion: the early ones, and `headers_then_nothing`, `cut_mid_stream`,
 * `stall_mid_stream`, `malformed_chunk` on the body; the whole answer waits `latency.ttftMs`.
 */
export async function handleEmbeddings(backend: BackendContext, exchange: Exchange): Promise<void> {
  const { request, response } = exchange;
  const body = await readJsonObject(request).catch(() => null);
  if (body === null) return;
  if (body === undefined) return sendError(response, badRequest('Request body must be a JSON object.'));
  const settings = backend.settings();
  const requested = typeof body['model'] === 'string' ? body['model'] : '';
  const { model: named, fault, unknownHeader } = selectFault(request.headers, requested, settings.fault);
  if (unknownHeader !== undefined)
    return sendError(response, badRequest(`Unknown x-sim-fault: ${unknownHeader}`, 'x-sim-fault'));
  if (fault !== undefined) {
    backend.stats.countFault(fault.name);
    const toContextError = (): SimError => badRequest('Simulated context length error');
    if (applyEarlyFault({ response, fault, state: backend.faultState, toContextError })) return;
  }
  const plan = toPlan(backend, body, named === '' ? (backend.models[0] ?? '') : named);
  if ('status' in plan) return sendError(response, plan);
  const { latency } = settings;
  const jitter = (latency.jitterMs ?? 0) * backend.random();
  await runNonStream({
    response,
    body: toBody(backend, plan),
    delayMs: (latency.ttftMs ?? 0) + jitter,
    fault,
    sleep: backend.sleep,
    signal: exchange.signal,
  });
}
