import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';
import { writeHeldOutFile } from './held-out-file.js';

const folder = createJsonlFolder('held-out-file-');

describe('held-out file', () => {
  it('writes the listed ids of every source file, lines unchanged and in file order', () => {
    const first = folder.writeLines('first.jsonl', [
      { id: 'd1', prompt: 'a', label: 'SIMPLE', acceptable: ['SIMPLE'] },
      { id: 'd2', prompt: 'b', label: 'EXPERT', acceptable: ['COMPLEX', 'EXPERT'] },
    ]);
    const second = folder.writeLines('second.jsonl', [{ id: 'd3', prompt: 'c', label: 'MODERATE' }]);
    const out = folder.path('out/held-out.jsonl');
    const count = writeHeldOutFile(out, { sourceFiles: [first, second], ids: new Set(['d3', 'd2']) });
    expect(count).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe(
      '{"id":"d2","prompt":"b","label":"EXPERT","acceptable":["COMPLEX","EXPERT"]}\n' +
        '{"id":"d3","prompt":"c","label":"MODERATE"}\n',
    );
  });
});
