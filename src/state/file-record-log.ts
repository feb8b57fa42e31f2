import { appendFile, readFile, rename } from 'node:fs/promises';
import { countLines } from '../shared/count-lines.js';
import type { RecordSink } from './record-sink.js';

export interface FileRecordLogOptions {
  path: string;
  /** Lines a file may hold; at that count it is renamed to `<path>.1` (replacing it) and a new one begins. */
  maxRecords: number;
}

async function countFileLines(path: string): Promise<number> {
  try {
    return countLines(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/**
 * A JSONL file that rotates: never more than `maxRecords` lines in `path` and as many in `<path>.1`,
 * so the disk holds at most twice `maxRecords`. Appends are serialized.
 */
export function createFileRecordLog(options: FileRecordLogOptions): RecordSink {
  let lines: number | undefined;
  let queue: Promise<void> = Promise.resolve();
  const write = async (batch: readonly string[]): Promise<void> => {
    lines ??= await countFileLines(options.path);
    let rest = batch;
    while (rest.length > 0) {
      if (lines >= options.maxRecords) {
        await rename(options.path, `${options.path}.1`);
        lines = 0;
      }
      const part = rest.slice(0, options.maxRecords - lines);
      await appendFile(options.path, part.map((line) => `${line}\n`).join(''));
      lines += part.length;
      rest = rest.slice(part.length);
    }
  };
  return {
    append(batch) {
      const next = queue.then(() => write(batch));
      queue = next.catch(() => undefined);
      return next;
    },
    close: () => queue,
  };
}
