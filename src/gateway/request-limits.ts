/**
 * Bounds on what one request may hold, so the work per request stays bounded. Generous:
 * real clients stay far below each one; a request past one gets 400 (413 for the body size) naming it.
 */
export const REQUEST_LIMITS = {
  /** Body bytes, as sent and after decompression: 20 MiB (long documents and base64 images). */
  bodyBytes: 20 * 1024 * 1024,
  /**
   * Nesting of arrays and objects, the body object being level 1. A chat request with tool JSON
   * schemas nests about 20 deep; 64 keeps every recursive pass (JSON.stringify, zod) far from the stack limit.
   */
  jsonDepth: 64,
  /** Messages in a chat request (long agent sessions reach a few thousand). */
  messages: 10_000,
  /** Content parts in one message (text and images). */
  contentParts: 1_000,
  /** Tools in a request; OpenAI documents 128, vLLM sets no limit. */
  tools: 512,
  /** Characters of `model` (served model names are well under 100). */
  modelChars: 256,
  /** Prompts in a legacy completion request's `prompt` array. */
  prompts: 2_048,
  /** Inputs of one embeddings request (OpenAI's limit). */
  embeddingInputs: 2_048,
  /** Characters of all text inputs of one embeddings request together (about 2M tokens of English). */
  embeddingCharacters: 8_000_000,
  /** Token ids of all token-array inputs of one embeddings request together. */
  embeddingTokenIds: 2_000_000,
  /** `dimensions` of an embeddings request (the largest embedding models have 4,096). */
  embeddingDimensions: 65_536,
} as const;
