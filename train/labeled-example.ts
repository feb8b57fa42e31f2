import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TIERS, type Tier } from '../src/shared/tier.js';
import type { ChatMessage } from '../src/shared/chat.js';
import type { ClassifyRequest } from '../src/classify/decision.js';

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
});

/** One line of a labeled JSONL file: `prompt` or `messages`, a gold `label`, optional `acceptable` tiers. */
const labeledLineSchema = z
  .looseObject({
    id: z.string().optional(),
    prompt: z.string().optional(),
    messages: z.array(messageSchema).optional(),
    label: z.enum(TIERS),
    acceptable: z.array(z.enum(TIERS)).optional(),
    source: z.string().optional(),
    lang: z.string().optional(),
    native: z.record(z.string(), z.unknown()).optional(),
    /** An annotator's reviewed label: trained on like gold, never scored (see `LabeledExample.reviewed`). */
    reviewed: z.boolean().optional(),
  })
  .refine((line) => line.prompt !== undefined || line.messages !== undefined, {
    message: 'needs `prompt` or `messages`',
  })
  .refine((line) => line.reviewed !== true || line.acceptable === undefined, {
    message: 'a `reviewed` line is trained on, not scored: it cannot carry gold `acceptable` tiers',
  });

export interface LabeledExample {
  id: string;
  request: ClassifyRequest;
  label: Tier;
  /** Every tier an annotator gave; at least `[label]`. */
  acceptable: readonly Tier[];
  source: string;
  /** True when the line carries `acceptable`: gold labels; weak lines (train-weak.jsonl) have none. */
  gold: boolean;
  /**
   * A label an annotator reviewed against the rubric, for training only: a weak example relabeled by a
   * `--reviewed` file of `npm run train`, or a line with `"reviewed": true`. Trained on like a gold
   * label, but never held out or scored as one.
   */
  reviewed: boolean;
  /** The weak source's own categories and difficulty levels (`native` in train-weak.jsonl). */
  native: Readonly<Record<string, unknown>>;
  /** File the example came from. */
  file: string;
}

export function toLabeledExample(value: unknown, file: string, index: number): LabeledExample {
  const line = labeledLineSchema.parse(value);
  const messages: ChatMessage[] =
    line.messages !== undefined
      ? line.messages.map((message): ChatMessage => ({ ...message, content: message.content ?? null }))
      : [{ role: 'user', content: line.prompt ?? '' }];
  return {
    id: line.id ?? `${file}#${index}`,
    request: { messages },
    label: line.label,
    acceptable: line.acceptable ?? [line.label],
    source: line.source ?? 'unknown',
    gold: line.acceptable !== undefined,
    reviewed: line.reviewed === true,
    native: line.native ?? {},
    file,
  };
}

/** Reads a labeled JSONL file; a bad line fails with its file and line number. */
export function readLabeledExamples(file: string): LabeledExample[] {
  return readJsonLines(file, (value, line) => toLabeledExample(value, file, line));
}

/**
 * Parses every non-blank line of a JSONL file with `parse` (given the value and its 1-based line
 * number); invalid JSON or an error thrown by `parse` fails with the file and line number.
 */
export function readJsonLines<T>(file: string, parse: (value: unknown, line: number) => T): T[] {
  const results: T[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      try {
        results.push(parse(JSON.parse(text) as unknown, index + 1));
      } catch (error) {
        throw new Error(`${file}:${index + 1}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
    });
  return results;
}
