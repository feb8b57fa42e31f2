import { z } from 'zod';
import type { ClassifyRequest } from '../src/classify/decision.js';
import type { ChatMessage } from '../src/shared/chat.js';
import { TIERS, type Tier } from '../src/shared/tier.js';

/** Optional fields the report breaks results down by, when a file carries them. */
export const FACETS = ['source', 'lang', 'kind'] as const;

export type Facet = (typeof FACETS)[number];

/** One labeled line of an eval file, ready for the classifier. */
export interface EvalCase {
  id: string;
  /** 1-based line number in the input file, for messages that point back at it. */
  line: number;
  request: ClassifyRequest;
  label: Tier;
  /** Tiers that are also fine; always contains `label`. */
  acceptable: readonly Tier[];
  facets: Readonly<Partial<Record<Facet, string>>>;
}

const contentPartSchema = z.looseObject({ type: z.string() });

const messageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
});

/** Lenient about extra fields (`needs_vision`, `native`...), strict about the ones the eval reads. */
const lineSchema = z
  .looseObject({
    id: z.string().min(1),
    prompt: z.string().optional(),
    messages: z.array(messageSchema).min(1).optional(),
    label: z.enum(TIERS),
    acceptable: z.array(z.enum(TIERS)).optional(),
    source: z.string().optional(),
    lang: z.string().optional(),
    kind: z.string().optional(),
    needs_vision: z.boolean().optional(),
  })
  .refine((line) => (line.prompt === undefined) !== (line.messages === undefined), {
    message: 'needs exactly one of `prompt` or `messages`',
  });

type ParsedLine = z.infer<typeof lineSchema>;

export type EvalLineResult = { ok: true; value: EvalCase } | { ok: false; message: string };

function toMessages(line: ParsedLine): ChatMessage[] {
  if (line.messages === undefined) return [{ role: 'user', content: line.prompt ?? '' }];
  return line.messages.map((message) => ({ ...message, content: message.content ?? null }));
}

function toFacets(line: ParsedLine): Partial<Record<Facet, string>> {
  const facets: Partial<Record<Facet, string>> = {};
  for (const facet of FACETS) {
    const value = line[facet];
    if (value !== undefined && value.length > 0) facets[facet] = value;
  }
  return facets;
}

function toProblem(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`))
    .join('; ');
}

/** Parses one JSONL line (1-based `line`); never throws, a bad line comes back as a message. */
export function toEvalCase(text: string, line: number): EvalLineResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not JSON (${(error as Error).message})` };
  }
  const parsed = lineSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: toProblem(parsed.error) };
  const value = parsed.data;
  const acceptable = [...new Set<Tier>([value.label, ...(value.acceptable ?? [])])];
  return {
    ok: true,
    value: {
      id: value.id,
      line,
      request: { messages: toMessages(value) },
      label: value.label,
      acceptable,
      facets: toFacets(value),
    },
  };
}
