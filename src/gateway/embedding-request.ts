import { z } from 'zod';
import { REQUEST_LIMITS } from './request-limits.js';

/**
 * POST /v1/embeddings as OpenAI documents it: `input` is a string, an array of strings, an array of
 * token ids or an array of token-id arrays. vLLM's `normalize` passes through; which fields a client may
 * send is body-fields.ts's allow-list (`truncate_prompt_tokens` is the operator's, in extra_body).
 */
const INPUT_SHAPES = 'a string, an array of strings, an array of token ids or an array of token-id arrays';

type EmbeddingInput = string | string[] | number[] | number[][];

const isTokenId = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

const isTokenIds = (value: unknown): value is number[] => Array.isArray(value) && value.every(isTokenId);

/**
 * One linear pass with no allocation per element: a union of four array schemas would collect an
 * issue per element for each shape that does not match (millions for a hostile 20 MiB body).
 */
function isEmbeddingInput(value: unknown): value is EmbeddingInput {
  if (typeof value === 'string') return true;
  if (!Array.isArray(value)) return false;
  const first: unknown = value[0];
  if (typeof first === 'string') return value.every((item) => typeof item === 'string');
  if (typeof first === 'number') return isTokenIds(value);
  return value.every(isTokenIds);
}

const inputSchema = z.custom<EmbeddingInput>(isEmbeddingInput, { error: `must be ${INPUT_SHAPES}` });

/** How many inputs a request holds, and their characters and token ids in all (linear in the input). */
export function toInputSize(input: EmbeddingInput): {
  inputs: number;
  characters: number;
  tokenIds: number;
  empty: boolean;
} {
  if (typeof input === 'string') return { inputs: 1, characters: input.length, tokenIds: 0, empty: false };
  let characters = 0;
  let tokenIds = 0;
  let empty = input.length === 0;
  for (const item of input) {
    if (typeof item === 'string') characters += item.length;
    else if (typeof item === 'number') tokenIds += 1;
    else {
      tokenIds += item.length;
      empty ||= item.length === 0;
    }
  }
  const flatTokens = input.length > 0 && typeof input[0] === 'number';
  return { inputs: flatTokens ? 1 : input.length, characters, tokenIds, empty };
}

export const embeddingRequestSchema = z
  .looseObject({
    model: z
      .string()
      .min(1)
      .max(REQUEST_LIMITS.modelChars, {
        error: `at most ${REQUEST_LIMITS.modelChars} characters (the limit)`,
      }),
    input: inputSchema,
    encoding_format: z.enum(['float', 'base64']).nullish(),
    dimensions: z.number().int().min(1).max(REQUEST_LIMITS.embeddingDimensions).nullish(),
    user: z.string().max(1024).nullish(),
    stream: z.literal(false, { error: 'embeddings are not streamed' }).nullish(),
  })
  .superRefine((request, context) => {
    const size = toInputSize(request.input);
    const problem = (message: string): void => {
      context.addIssue({ code: 'custom', path: ['input'], message });
    };
    if (size.empty) problem('must not be an empty array');
    if (size.inputs > REQUEST_LIMITS.embeddingInputs)
      problem(`at most ${REQUEST_LIMITS.embeddingInputs} inputs (the limit)`);
    if (size.characters > REQUEST_LIMITS.embeddingCharacters)
      problem(`at most ${REQUEST_LIMITS.embeddingCharacters} characters in all (the limit)`);
    if (size.tokenIds > REQUEST_LIMITS.embeddingTokenIds)
      problem(`at most ${REQUEST_LIMITS.embeddingTokenIds} token ids in all (the limit)`);
  });

export type EmbeddingRequest = z.infer<typeof embeddingRequestSchema>;

/** The text inputs, and the token ids of the token inputs in all. */
export function toInputParts(input: EmbeddingRequest['input']): { texts: string[]; tokenIds: number } {
  if (typeof input === 'string') return { texts: [input], tokenIds: 0 };
  const texts: string[] = [];
  let tokenIds = 0;
  for (const item of input) {
    if (typeof item === 'string') texts.push(item);
    else if (typeof item === 'number') tokenIds += 1;
    else tokenIds += item.length;
  }
  return { texts, tokenIds };
}
