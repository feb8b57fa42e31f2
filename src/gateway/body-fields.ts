import { RouterError } from '../shared/errors.js';
import { UPSTREAM_PATHS, type UpstreamCall } from './upstream-call.js';

/**
 * The top-level body fields a client may send, per endpoint: OpenAI's documented request fields (openai
 * SDK 6.49 `*CreateParams`) and the vLLM extras that only shape the sender's own sampling. Anything
 * else is refused with a 400 naming it, before any work: vLLM's scheduler, transport and server
 * controls (`priority`, `kv_transfer_params`, `request_id`, `chat_template`, ...) belong to the
 * operator, who sets them per deployment or group in the table's `extra_body`. The reference, with the
 * reason for every vLLM field, is docs/body-fields.md.
 */
/** The allow-lists, one per kind of upstream call. */
export type BodyEndpoint = UpstreamCall;

const OPENAI_CHAT = [
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'moderation',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
];

const OPENAI_COMPLETIONS = [
  'model',
  'prompt',
  'best_of',
  'echo',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_tokens',
  'n',
  'presence_penalty',
  'seed',
  'stop',
  'stream',
  'stream_options',
  'suffix',
  'temperature',
  'top_p',
  'user',
];

/** Some of these are refused later with their own reason (responses-request.ts: `previous_response_id`, ...). */
const OPENAI_RESPONSES = [
  'background',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
];

const OPENAI_EMBEDDINGS = ['input', 'model', 'dimensions', 'encoding_format', 'user'];

/**
 * vLLM sampling extras that change only the sender's own output, within the max_tokens and `n` that
 * admission counts: truncation of the distribution, penalties, stop conditions, detokenization, and
 * constrained decoding (the same work `response_format: json_schema` already asks for).
 */
const VLLM_SAMPLING = [
  'top_k',
  'min_p',
  'repetition_penalty',
  'length_penalty',
  'stop_token_ids',
  'include_stop_str_in_output',
  'skip_special_tokens',
  'spaces_between_special_tokens',
  'bad_words',
  'allowed_token_ids',
  'max_repetition_pattern_size',
  'min_repetition_pattern_size',
  'repetition_min_count',
  'guided_json',
  'guided_regex',
  'guided_choice',
  'guided_grammar',
  'guided_whitespace_pattern',
  'structured_outputs',
];

/**
 * vLLM chat-template extras that shape only the sender's own prompt: `chat_template_kwargs` (e.g.
 * `enable_thinking`; its `chat_template` key is refused, see CHAT_TEMPLATE_KWARGS_REFUSED),
 * `add_generation_prompt`, `continue_final_message` (prefill) and `include_reasoning`.
 */
const VLLM_CHAT_TEMPLATE = [
  'chat_template_kwargs',
  'add_generation_prompt',
  'continue_final_message',
  'include_reasoning',
];

/**
 * vLLM pooling extra `normalize` (unit-length vectors or not, the sender's own answer), and `stream`,
 * which the embeddings parser accepts as false and refuses otherwise with its own message.
 */
const VLLM_EMBEDDINGS = ['normalize', 'stream'];

/**
 * The fields vLLM reads that are the operator's, and why: each reaches past the sender's own sampling
 * (scheduling order, cache isolation, disaggregated-serving transport, server-side code or templates,
 * prompt handling that autotier's token count and classifier do not see, or the shape of an answer
 * autotier parses). Set them in `extra_body` of a deployment, tier or the embeddings group.
 */
const OPERATOR_FIELDS: Readonly<Record<string, string>> = {
  priority: "jumps other requests' places in vLLM's priority scheduler",
  request_id: "is the engine's id for the request, shared with other tenants' requests in the fleet's logs",
  kv_transfer_params: 'drives the disaggregated-serving KV transport between deployments',
  cache_salt: 'decides which prefix-cache entries a request may share',
  vllm_xargs: 'passes arguments to server-side extensions',
  logits_processors: 'names server-side code to run',
  chat_template: 'replaces the server-side chat template',
  mm_processor_kwargs: "passes arguments to the server's multimodal processor",
  documents: "adds prompt text the classifier and autotier's token count do not read",
  prompt_embeds: 'sends tensors the server deserializes, which autotier cannot count',
  add_special_tokens: "changes the prompt's tokenization",
  truncate_prompt_tokens: 'makes the server drop prompt tokens autotier counted',
  ignore_eos: 'turns every answer into a max-length one (a load-test knob)',
  min_tokens: 'forces answers past their natural end (a load-test knob)',
  use_beam_search: 'runs a beam search, several sequences per choice',
  prompt_logprobs: 'computes log-probabilities over the whole prompt',
  return_tokens_as_token_ids: 'changes the shape of the answer autotier parses',
  return_token_ids: 'changes the shape of the answer autotier parses',
  guided_decoding_backend: 'picks the server-side decoding backend',
  embed_dtype: 'changes the encoding of the vectors autotier converts',
  endianness: 'changes the encoding of the vectors autotier converts',
};

/** Keys of `chat_template_kwargs` that are a server-control field under another name. */
const CHAT_TEMPLATE_KWARGS_REFUSED = ['chat_template', 'tokenize'];

const CHAT_FIELDS = [...OPENAI_CHAT, ...VLLM_SAMPLING, ...VLLM_CHAT_TEMPLATE];

const FIELDS: Readonly<Record<BodyEndpoint, ReadonlySet<string>>> = {
  chat: new Set(CHAT_FIELDS),
  completions: new Set([...OPENAI_COMPLETIONS, ...VLLM_SAMPLING, 'response_format']),
  responses: new Set([...OPENAI_RESPONSES, ...VLLM_SAMPLING, ...VLLM_CHAT_TEMPLATE]),
  embeddings: new Set([...OPENAI_EMBEDDINGS, ...VLLM_EMBEDDINGS]),
};

/** The client's path of the endpoints whose bodies an allow-list checks: `/v1` and the upstream path. */
const toClientPath = (endpoint: BodyEndpoint): string => `/v1${UPSTREAM_PATHS[endpoint]}`;

/** At most this many characters of a field name go back in an error, so a huge name is not echoed. */
const NAME_CHARS = 64;

function toShownName(name: string): string {
  return name.length <= NAME_CHARS ? name : `${name.slice(0, NAME_CHARS)}...`;
}

function refuse(param: string, message: string): RouterError {
  return new RouterError({ code: 'INVALID_REQUEST', message, param });
}

function toRefusal(name: string, endpoint: BodyEndpoint): RouterError {
  const shown = toShownName(name);
  const reason = Object.hasOwn(OPERATOR_FIELDS, name) ? OPERATOR_FIELDS[name] : undefined;
  if (reason !== undefined)
    return refuse(
      shown,
      `\`${shown}\` is set by the operator, not by a request: it ${reason} (a deployment's or tier's extra_body in the routing table)`,
    );
  const elsewhere = (Object.keys(FIELDS) as BodyEndpoint[]).find((other) => FIELDS[other].has(name));
  const hint = elsewhere === undefined ? '' : ` (it is a field of ${toClientPath(elsewhere)})`;
  return refuse(
    shown,
    `Unrecognized request argument supplied: \`${shown}\` is not a field of ${toClientPath(endpoint)}${hint}; docs/body-fields.md lists the fields accepted`,
  );
}

function checkTemplateKwargs(value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const key of CHAT_TEMPLATE_KWARGS_REFUSED)
    if (Object.hasOwn(value, key) && !allowed.includes(key))
      throw refuse(
        `chat_template_kwargs.${key}`,
        `\`chat_template_kwargs.${key}\` is set by the operator, not by a request: it changes how the server renders the chat template`,
      );
}

/**
 * Throws INVALID_REQUEST naming the first field of `body` that `endpoint` does not accept, with the
 * reason for an operator's field. `allowed` holds the extra names the table lets clients send (its
 * `client_fields`, a few names). A body that is not an object is left to the endpoint's parser.
 * Linear in the number of fields.
 */
export function checkBodyFields(
  body: unknown,
  endpoint: BodyEndpoint,
  allowed: readonly string[] = [],
): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const accepted = FIELDS[endpoint];
  for (const name of Object.keys(body))
    if (!accepted.has(name) && !allowed.includes(name)) throw toRefusal(name, endpoint);
  checkTemplateKwargs((body as Record<string, unknown>)['chat_template_kwargs'], allowed);
}

/** The fields an endpoint accepts from a client (for docs and tests). */
export function toAcceptedFields(endpoint: BodyEndpoint): readonly string[] {
  return [...FIELDS[endpoint]];
}

/** The fields that are the operator's, with the reason (for docs and tests). */
export function toOperatorFields(): Readonly<Record<string, string>> {
  return OPERATOR_FIELDS;
}
