// Copies the dashboard's static files next to the compiled server, so `node dist/main.js` serves them,
// and compiles the tokenizers' tables (dist/tokenizers/tables), which the server reads at start
// instead of parsing the tokenizer packages (see src/tokenizers/compiled-tables.ts).
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';

cpSync('src/dashboard/public', 'dist/dashboard/public', { recursive: true });

const tables = await import('../dist/tokenizers/compiled-tables.js');
const { loadTokenizerSpec } = await import('../dist/tokenizers/load-text-counter.js');
const { TOKENIZER_NAMES } = await import('../dist/tokenizers/tokenizer-name.js');
const folder = resolve('dist/tokenizers/tables');
await tables.writeCompiledTables(folder, loadTokenizerSpec, TOKENIZER_NAMES);
