import type { ContinuationPrefix } from '../balance/balancer.js';
import type { DeploymentConfig, TierConfig } from '../config/table-part-schemas.js';
import type { ChatRequest } from './chat-request.js';
import { shapeUpstreamBody } from './shape-body.js';

/** Fields that constrain decoding from the first token: a continuation would restart their grammar. */
const STRUCTURED_FIELDS = [
  'guided_json',
  'guided_regex',
  'guided_choice',
  'guided_grammar',
  'structured_outputs',
];

export interface ContinuationBodyInput {
  request: ChatRequest;
  tierConfig: TierConfig;
  /** The request's max_tokens after the tier's cap. */
  maxTokens: number;
}

/**
 * How to continue a broken answer to this chat request on another deployment: the same body with the
 * delivered text as a final assistant message, `continue_final_message: true` and
 * `add_generation_prompt: false` (vLLM's and SGLang's assistant prefill), and max_tokens lowered by the
 * tokens already spent. Undefined when a continuation would not be the same answer: several choices,
 * structured output (its grammar starts at the first token), `echo`, or a conversation that ends in
 * an assistant message the client did not ask to continue. A client's own prefill
 * (`continue_final_message: true`) is extended by the delivered text.
 */
export function toContinuationBodyMaker(
  input: ContinuationBodyInput,
): ((deployment: DeploymentConfig, delivered: ContinuationPrefix) => string) | undefined {
  const { request } = input;
  const body = request as Record<string, unknown>;
  if ((request.n ?? 1) > 1 || body['echo'] === true) return undefined;
  const format = body['response_format'];
  const formatType =
    typeof format === 'object' && format !== null ? (format as { type?: unknown }).type : undefined;
  if (formatType === 'json_object' || formatType === 'json_schema') return undefined;
  if (STRUCTURED_FIELDS.some((field) => body[field] !== undefined && body[field] !== null)) return undefined;
  const last = request.messages.at(-1);
  const clientPrefill = last?.role === 'assistant' ? last : undefined;
  if (
    clientPrefill !== undefined &&
    (body['continue_final_message'] !== true || typeof clientPrefill.content !== 'string')
  )
    return undefined;
  const history = clientPrefill === undefined ? request.messages : request.messages.slice(0, -1);
  const before = typeof clientPrefill?.content === 'string' ? clientPrefill.content : '';
  return (deployment, delivered) => {
    const messages: unknown[] = [...history, { role: 'assistant', content: before + delivered.prefix }];
    return shapeUpstreamBody({
      body: Object.assign({}, body, {
        messages,
        continue_final_message: true,
        add_generation_prompt: false,
      }),
      deployment,
      tierConfig: input.tierConfig,
      maxTokens: Math.max(1, input.maxTokens - delivered.completionTokens),
    });
  };
}
