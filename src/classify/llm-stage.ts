import type OpenAI from 'openai';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import { redactSecrets } from '../shared/redact.js';
import type { ClassifyInput } from './classify-input.js';
import { parseClassifierReply, type LlmVerdict } from './parse-classifier-reply.js';

export interface LlmStageOptions {
  deployment: DeploymentConfig;
  /** The rendered system prompt (prompts/classifier.md with the tier models filled in). */
  systemPrompt: string;
  maxTokens: number;
  apiKey: string | undefined;
}

/**
 * The verdict or the problem, and the tokens the call cost: the server's `usage` when it answered,
 * else an estimate of the prompt (4 characters a token), so a failed call is still paid for.
 */
export type LlmOutcome = ({ ok: true; verdict: LlmVerdict } | { ok: false; problem: string }) & {
  tokens: number;
};

export interface LlmStage {
  /**
   * Asks the classifier model; never throws: failures come back as `{ ok: false }`. `traceHeaders`:
   * the W3C headers of the call's span, sent with it.
   */
  ask(
    input: ClassifyInput,
    signal: AbortSignal,
    traceHeaders?: Readonly<Record<string, string>>,
  ): Promise<LlmOutcome>;
  /** The classifier deployment, named in the stage's span. */
  readonly target?: { deploymentId: string; model: string };
}

/** Longest classifier reply parsed, characters. */
const MAX_REPLY_CHARACTERS = 16_384;

/** Rough characters per token, for the cost of a call whose server reported no usage. */
const CHARACTERS_PER_TOKEN = 4;

/** JSON schema for vLLM's guided decoding, so the reply is valid JSON by construction. */
const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    complexity: { type: 'string', enum: ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'] },
    reason: { type: 'string', maxLength: 200 },
    needs_vision: { type: 'boolean' },
  },
  required: ['complexity', 'reason', 'needs_vision'],
  additionalProperties: false,
} as const;

/** The request as data: JSON-encoded, so braces, quotes and "ignore previous instructions" stay inert. */
export function toClassifierUserMessage(input: ClassifyInput): string {
  return JSON.stringify({
    last_user_message: input.text,
    last_user_message_characters: input.textLength,
    conversation_turns: input.turns,
    system_prompt_characters: input.systemLength,
    images_attached: input.imageCount,
    tools_offered: input.hasTools,
  });
}

/** The classifier call through the openai SDK (maxRetries 0: only the cascade decides what happens next). */
export function createLlmStage(options: LlmStageOptions): LlmStage {
  const { deployment } = options;
  // the SDK is imported when a table has an LLM stage, not at the top: a local-only server never loads it
  const client: Promise<OpenAI> = import('openai').then(
    ({ default: OpenAIClient }) =>
      new OpenAIClient({ baseURL: deployment.base_url, apiKey: options.apiKey ?? 'none', maxRetries: 0 }),
  );
  client.catch(() => undefined);
  return {
    target: { deploymentId: deployment.id, model: deployment.model },
    async ask(input, signal, traceHeaders) {
      const userMessage = toClassifierUserMessage(input);
      const body = {
        model: deployment.model,
        messages: [
          { role: 'system' as const, content: options.systemPrompt },
          { role: 'user' as const, content: userMessage },
        ],
        temperature: 0,
        max_tokens: options.maxTokens,
        chat_template_kwargs: { enable_thinking: false },
        ...(deployment.supports_json_schema
          ? {
              response_format: {
                type: 'json_schema' as const,
                json_schema: { name: 'complexity', schema: VERDICT_SCHEMA, strict: true },
              },
            }
          : {}),
      };
      const promptEstimate = Math.ceil(
        (options.systemPrompt.length + userMessage.length) / CHARACTERS_PER_TOKEN,
      );
      try {
        const completion = await (
          await client
        ).chat.completions.create(
          body,
          traceHeaders === undefined ? { signal } : { signal, headers: { ...traceHeaders } },
        );
        const content = completion.choices[0]?.message.content ?? '';
        const tokens =
          completion.usage?.total_tokens ?? promptEstimate + Math.ceil(content.length / CHARACTERS_PER_TOKEN);
        // max_tokens keeps a real reply to a few hundred characters; a broken server's is cut here
        return Object.assign(parseClassifierReply(content.slice(0, MAX_REPLY_CHARACTERS)), { tokens });
      } catch (error) {
        return {
          ok: false,
          problem: signal.aborted ? 'deadline' : redactSecrets((error as Error).message, [options.apiKey]),
          tokens: promptEstimate,
        };
      }
    },
  };
}
