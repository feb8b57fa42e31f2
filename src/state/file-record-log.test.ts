import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createJsonlFolder } from '../../test/helpers/jsonl-folder.js';
import { createFileRecordLog } from './file-record-log.js';

const folder = createJsonlFolder('autotier-record-log-');
const linesOf = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

describe('the file record log', () => {
  it('appends lines in order and rotates at max_records, keeping at most twice that on disk', async () => {
    const path = folder.path('traffic.jsonl');
    const log = createFileRecordLog({ path, maxRecords: 3 });
    await log.append(['1', '2']);
    await log.append(['3', '4', '5']);
    await log.append(['6', '7', '8', '9']);
    await log.close();
    expect(linesOf(path)).toEqual(['7', '8', '9']);
    expect(linesOf(`${path}.1`)).toEqual(['4', '5', '6']);
  });

  it('counts the lines a file already has when it starts again', async () => {
    const path = folder.writeLines('existing.jsonl', ['a', 'b']);
    const log = createFileRecordLog({ path, maxRecords: 3 });
    await log.append(['c', 'd']);
    expect(linesOf(path)).toEqual(['d']);
    expect(linesOf(`${path}.1`)).toEqual(['"a"', '"b"', 'c']);
  });
});
