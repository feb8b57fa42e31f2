import { appendFile, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { countLines } from '../shared/count-lines.js';

/**
 * An append-only spool on disk for rows the database could not take: numbered segment files of JSON
 * lines under one folder. Rows are appended to the newest segment; `oldest` hands out the oldest
 * closed segment whole (closing the newest first when it is the only one), and `remove` deletes a
 * segment once its rows are in the database. A process that stops with rows spooled finds them at its
 * next start. A line cut by a crash mid-write is skipped and counted, never parsed into a wrong row.
 */
export interface Spool<Row> {
  /** Appends rows after every row spooled before them; serialized with every other call. */
  append(rows: readonly Row[]): Promise<void>;
  /** The oldest segment's rows, or undefined when the spool is empty. */
  oldest(): Promise<{ id: number; rows: Row[] } | undefined>;
  /** Deletes a segment `oldest` handed out. */
  remove(id: number): Promise<void>;
  /** True when rows are waiting on disk. */
  hasRows(): boolean;
  /** Rows and bytes on disk, and lines skipped as unreadable since start. */
  size(): { rows: number; bytes: number; skippedLines: number };
}

export interface SpoolOptions {
  /** The folder of the segment files (created when missing). */
  dir: string;
  /** A segment closes once it holds this many bytes. @default 4 MiB */
  segmentBytes?: number;
}

const SEGMENT = /^segment-(\d{12})\.jsonl$/;
const DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024;

function toName(id: number): string {
  return `segment-${String(id).padStart(12, '0')}.jsonl`;
}

/** Opens (or creates) the spool in `dir`, counting the rows a previous process left there. */
export async function openSpool<Row>(options: SpoolOptions): Promise<Spool<Row>> {
  const { dir } = options;
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  await mkdir(dir, { recursive: true });
  /** Segment ids on disk, oldest first, with their rows and bytes. */
  const segments = new Map<number, { rows: number; bytes: number }>();
  for (const name of (await readdir(dir)).sort()) {
    const id = SEGMENT.exec(name)?.[1];
    if (id === undefined) continue;
    const text = await readFile(join(dir, name), 'utf8');
    segments.set(Number(id), { rows: countLines(text), bytes: (await stat(join(dir, name))).size });
  }
  let current = Math.max(0, ...segments.keys()) + 1;
  let skippedLines = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const append = async (rows: readonly Row[]): Promise<void> => {
    if (rows.length === 0) return;
    const text = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    const bytes = Buffer.byteLength(text);
    await appendFile(join(dir, toName(current)), text);
    const segment = segments.get(current) ?? { rows: 0, bytes: 0 };
    segments.set(current, { rows: segment.rows + rows.length, bytes: segment.bytes + bytes });
    if (segment.bytes + bytes >= segmentBytes) current += 1;
  };

  const oldest = async (): Promise<{ id: number; rows: Row[] } | undefined> => {
    const id = Math.min(...segments.keys());
    if (!Number.isFinite(id)) return undefined;
    // the newest segment is closed before it is read: later rows go to the next one
    if (id === current) current += 1;
    const text = await readFile(join(dir, toName(id)), 'utf8');
    const rows: Row[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        rows.push(JSON.parse(line) as Row);
      } catch {
        skippedLines += 1;
      }
    }
    return { id, rows };
  };

  const remove = async (id: number): Promise<void> => {
    await rm(join(dir, toName(id)), { force: true });
    segments.delete(id);
  };

  return {
    append: (rows) => serialize(() => append(rows)),
    oldest: () => serialize(oldest),
    remove: (id) => serialize(() => remove(id)),
    hasRows: () => segments.size > 0,
    size: () => {
      let rows = 0;
      let bytes = 0;
      for (const segment of segments.values()) {
        rows += segment.rows;
        bytes += segment.bytes;
      }
      return { rows, bytes, skippedLines };
    },
  };
}
