import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes the lines of `sourceFiles` whose id is in `ids`, unchanged, to `file` (`npm run train --
 * --write-held-out`): the held-out gold examples as labeled JSONL, for `npm run eval`. Returns the count.
 */
export function writeHeldOutFile(
  file: string,
  options: { sourceFiles: readonly string[]; ids: ReadonlySet<string> },
): number {
  const lines = options.sourceFiles.flatMap((sourceFile) =>
    readFileSync(sourceFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && options.ids.has(toId(line))),
  );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines.length;
}

function toId(line: string): string {
  const value = JSON.parse(line) as { id?: unknown };
  return typeof value.id === 'string' ? value.id : '';
}
