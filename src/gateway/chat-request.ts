import { z } from 'zod';
import { RouterError } from '../shared/errors.js';
import type { ChatMessage } from '../shared/chat.js';
import { REQUEST_LIMITS } from './request-limits.js';

/**
 * The fields autotier reads and checks. Objects are loose: the other accepted fields (tools,
 * tool_choice, response_format, stop, seed, ...) pass through; which top-level fields a client may send
 * at all is body-fields.ts's allow-list, checked before this.
 */
const contentPartSchema = z.looseObject({ type: z.string().min(1) });

const atMost = (count: number, what: string): { error: string } => ({
  error: `at most ${count} ${what} (the limit)`,
});

const modelSchema = z
  .string()
  .min(1)
  .max(REQUEST_LIMITS.modelChars, atMost(REQUEST_LIMITS.modelChars, 'characters'));

/** Limits on a union member are checked on the object: inside the union zod reports only "Invalid input". */
const messageSchema = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
  })
  .refine(
    (message) => !Array.isArray(message.content) || message.content.length <= REQUEST_LIMITS.contentParts,
    { ...atMost(REQUEST_LIMITS.contentParts, 'content parts'), path: ['content'] },
  );

const toolSchema = z.looseObject({
  type: z.string(),
  function: z.looseObject({ name: z.string().min(1) }).optional(),
});

export const chatRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z
    .array(messageSchema)
    .min(1)
    .max(REQUEST_LIMITS.messages, atMost(REQUEST_LIMITS.messages, 'messages')),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  n: z.number().int().min(1).max(16).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z.array(toolSchema).max(REQUEST_LIMITS.tools, atMost(REQUEST_LIMITS.tools, 'tools')).nullish(),
  user: z.string().nullish(),
});

export const completionRequestSchema = z
  .looseObject({
    model: modelSchema,
    prompt: z.union([z.string(), z.array(z.string()).min(1)]),
    suffix: z.string().nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().positive().nullish(),
    n: z.number().int().min(1).max(16).nullish(),
    /** Sequences generated per prompt, the best `n` returned (OpenAI allows up to 20). */
    best_of: z.number().int().min(1).max(20).nullish(),
  })
  .refine((request) => !Array.isArray(request.prompt) || request.prompt.length <= REQUEST_LIMITS.prompts, {
    ...atMost(REQUEST_LIMITS.prompts, 'prompts'),
    path: ['prompt'],
  });

export type ChatRequest = z.infer<typeof chatRequestSchema> & { messages: ChatMessage[] };
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

/** `messages[0].content` style, as OpenAI names params. */
function toParam(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`,
    '',
  );
}

/** Parses a body with a schema, or throws INVALID_REQUEST naming the first bad field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RouterError({ code: 'INVALID_REQUEST', message: 'the request body must be a JSON object' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = toParam(issue?.path ?? []);
  throw new RouterError({
    code: 'INVALID_REQUEST',
    message: `invalid request: ${param === '' ? 'body' : param}: ${issue?.message ?? 'invalid'}`,
    param,
  });
}
