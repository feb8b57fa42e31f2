#!/usr/bin/env node
import { validateTableFile } from './validate-table.js';

const USAGE =
  'usage: autotier validate <routing-table.yaml>...   (start the service with: node dist/main.js [--table file])';

/** `autotier validate <file>...`: prints each table's errors with their key paths; exit 1 if any is invalid. */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...files] = argv;
  if (command !== 'validate' || files.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let failed = false;
  for (const file of files) {
    const report = await validateTableFile(file);
    (report.ok ? process.stdout : process.stderr).write(`${report.lines.join('\n')}\n`);
    failed ||= !report.ok;
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
