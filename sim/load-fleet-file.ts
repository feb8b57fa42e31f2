import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import type { DemoBackendOptions } from './demo-fleet.js';
import { FAULT_NAMES } from './fault-spec.js';

const latencySchema = z
  .object({
    ttftMs: z.number().nonnegative().optional(),
    tokensPerSecond: z.number().nonnegative().optional(),
    jitterMs: z.number().nonnegative().optional(),
  })
  .strict();

const backendSchema = z
  .object({
    id: z.string().min(1),
    models: z.array(z.string().min(1)).min(1),
    host: z.string().optional(),
    latency: latencySchema.optional(),
    contextWindow: z.number().int().positive().optional(),
    fault: z
      .object({
        name: z.enum(FAULT_NAMES),
        params: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
      })
      .strict()
      .optional(),
    reasoning: z.enum(['inline', 'reasoning_content', 'none']).optional(),
    continuation: z.boolean().optional(),
    embedding: z
      .object({
        dimensions: z.number().int().positive().max(65_536).optional(),
        matryoshka: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /** Serves POST /v1/responses (vLLM does). @default true */
    responses: z.boolean().optional(),
  })
  .strict();

/** A fleet file is `{ backends: [...] }` or just the list, in YAML or JSON (JSON is YAML). */
const fleetFileSchema = z.union([
  z.object({ backends: z.array(backendSchema).min(1) }).strict(),
  z.array(backendSchema).min(1),
]);

/** Reads and validates a fleet file; errors name the file and the key path. */
export async function loadFleetFile(path: string): Promise<DemoBackendOptions[]> {
  const parsed = fleetFileSchema.safeParse(parse(await readFile(path, 'utf8')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`Invalid fleet file ${path}:\n  ${issues.join('\n  ')}`);
  }
  const backends = Array.isArray(parsed.data) ? parsed.data : parsed.data.backends;
  // zod leaves absent optional keys absent, so the shape already matches exactOptionalPropertyTypes.
  return backends as DemoBackendOptions[];
}
