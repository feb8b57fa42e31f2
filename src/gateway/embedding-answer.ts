import type { ExecuteResult } from '../balance/balancer.js';
import { RouterError } from '../shared/errors.js';
import { fromFloat32Base64, toFloat32Base64 } from '../shared/float32-base64.js';
import type { Usage } from '../upstream/chat-chunk.js';

type Vector = number[] | string;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function malformed(deploymentId: string, what: string): RouterError {
  return new RouterError({
    code: 'UPSTREAM_MALFORMED',
    message: `${deploymentId}: embeddings answer ${what}`,
    retryable: false,
  });
}

/** One vector in the client's encoding; undefined when the upstream's is neither numbers nor base64. */
function toEncoded(embedding: unknown, format: 'float' | 'base64'): Vector | undefined {
  if (typeof embedding === 'string') return format === 'base64' ? embedding : fromFloat32Base64(embedding);
  if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === 'number')) return undefined;
  return format === 'float' ? embedding : toFloat32Base64(embedding);
}

/**
 * OpenAI's answer to POST /v1/embeddings from the deployment's: `object: list`, one `embedding` per
 * input in input order, in the encoding the client asked for (converted when the deployment answered in
 * the other one), the served model name, and usage with prompt and total tokens.
 */
export function toEmbeddingAnswer(
  result: ExecuteResult,
  request: { inputs: number; format: 'float' | 'base64' },
): { body: Record<string, unknown>; usage: Usage | undefined } {
  const { id } = result.deployment;
  const chunk = result.head[0]?.chunk;
  const data = chunk?.['data'];
  if (!Array.isArray(data)) throw malformed(id, 'has no `data` list');
  if (data.length !== request.inputs)
    throw malformed(id, `has ${data.length} embeddings for ${request.inputs} inputs`);
  const vectors = new Array<Vector | undefined>(request.inputs);
  for (const [position, item] of data.entries()) {
    if (!isObject(item)) throw malformed(id, 'has an item that is not an object');
    const index = typeof item['index'] === 'number' ? item['index'] : position;
    const vector = toEncoded(item['embedding'], request.format);
    if (vector === undefined) throw malformed(id, 'has an embedding that is neither numbers nor base64');
    if (!Number.isInteger(index) || index < 0 || index >= request.inputs || vectors[index] !== undefined)
      throw malformed(id, `has a wrong or repeated index ${String(index)}`);
    vectors[index] = vector;
  }
  // a server that reported no usage: the client sees zeros, the key is charged autotier's count
  const reported = chunk?.usage ?? undefined;
  const usage = reported ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const model = typeof chunk?.model === 'string' ? chunk.model : result.deployment.model;
  return {
    body: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model,
      usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens },
    },
    usage: reported,
  };
}
