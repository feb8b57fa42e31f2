/**
 * Error bodies in the shape current vLLM returns: `{"error":{"message","type","param","code"}}` with
 * `code` the numeric HTTP status (vllm/entrypoints/openai/engine/protocol.py `ErrorResponse(error:
 * ErrorInfo)`, built by `OpenAIServing.create_error_response` in engine/serving.py). vLLM before the
 * ErrorInfo change sent a flat `{"object":"error","message",...,"code":400}`; we follow the current one
 * because it is also the OpenAI shape clients parse.
 */
export interface SimError {
  status: number;
  message: string;
  /** vLLM error class name; derived from the status when absent. */
  type?: string;
  param?: string | null;
}

/** vLLM's `err_type` for a status: the Python exception class names it uses. */
export function toErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequestError';
    case 404:
      return 'NotFoundError';
    case 429:
      return 'RateLimitError';
    case 501:
      return 'NotImplementedError';
    case 503:
      return 'ServiceUnavailableError';
    default:
      return status >= 500 ? 'InternalServerError' : 'BadRequestError';
  }
}

export function toErrorBody(error: SimError): string {
  return JSON.stringify({
    error: {
      message: error.message,
      type: error.type ?? toErrorType(error.status),
      param: error.param ?? null,
      code: error.status,
    },
  });
}

export interface ContextLengthInput {
  window: number;
  promptTokens: number;
  maxTokens: number | undefined;
  /** `current` = vLLM's `_validate_input` today; `legacy` = the pre-2025 single sentence. */
  wording: 'current' | 'legacy';
}

/** vLLM's context-length message; every wording contains "maximum context length is N tokens". */
export function toContextLengthError(input: ContextLengthInput): SimError {
  const { window, promptTokens, maxTokens } = input;
  if (input.wording === 'legacy') {
    const completion = maxTokens ?? 0;
    const message =
      `This model's maximum context length is ${window} tokens. However, you requested ` +
      `${promptTokens + completion} tokens (${promptTokens} in the messages, ${completion} in the ` +
      'completion). Please reduce the length of the messages or completion.';
    return { status: 400, message, param: null };
  }
  if (maxTokens === undefined || promptTokens >= window) {
    const message =
      `This model's maximum context length is ${window} tokens. However, your request has ` +
      `${promptTokens} input tokens. Please reduce the length of the input messages.`;
    return { status: 400, message, param: 'input_tokens' };
  }
  const message =
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context ` +
    `length is ${window} tokens and your request has ${promptTokens} input tokens ` +
    `(${maxTokens} > ${window} - ${promptTokens}).`;
  return { status: 400, message, param: 'max_tokens' };
}
