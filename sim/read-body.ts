import type { IncomingMessage } from 'node:http';
import { isRecord } from './json-from-schema.js';

/** Largest accepted request body, in bytes (vLLM has no small limit; this only guards the simulator). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Reads and parses a JSON object body. Resolves undefined when the body is not a JSON object;
 * rejects when the client goes away mid-body.
 */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  try {
    const parsed: unknown = JSON.parse(
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
    );
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
