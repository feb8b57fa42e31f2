import type { DeploymentConfig } from '../config/table-part-schemas.js';

/**
 * The embeddings body sent to one deployment: the client's fields (those body-fields.ts accepts), the
 * deployment's and the group's `extra_body` over them (an operator
 * may set `encoding_format: base64` to move a quarter of the bytes; the answer is converted back), and
 * the deployment's served model name.
 */
export function shapeEmbeddingBody(input: {
  body: Record<string, unknown>;
  deployment: DeploymentConfig;
  extraBody: Readonly<Record<string, unknown>>;
}): string {
  return JSON.stringify(
    Object.assign({}, input.body, input.deployment.extra_body, input.extraBody, {
      model: input.deployment.model,
    }),
  );
}
