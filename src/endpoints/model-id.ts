import { RouterError } from '../shared/errors.js';

/** GET /v1/models/{id}: the prefix below which a model id starts. */
export const MODELS_PREFIX = '/v1/models/';

/**
 * The model id of a GET /v1/models/{id} path, percent-decoded: `Qwen/Qwen3-8B` arrives as is or as
 * `Qwen%2FQwen3-8B` (the openai SDK sends the id as given). A malformed escape is a 400 naming `model`.
 */
export function toModelId(path: string): string {
  const raw = path.slice(MODELS_PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RouterError({
      code: 'INVALID_REQUEST',
      message: 'invalid model id: a malformed percent escape in the path',
      param: 'model',
    });
  }
}
