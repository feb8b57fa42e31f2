/**
 * Parameters per statement at most. The protocol's limit is 65,535 (a 16-bit count in Bind); a
 * lower cap keeps each statement's text and parameter buffers small, which matters most to the
 * embedded back end, whose memory is one WebAssembly heap.
 */
export const MAX_PARAMETERS_PER_STATEMENT = 10_000;

/** A table's columns, each with how to read it from a row; names are constants of the code, never input. */
export interface InsertTable<Row> {
  name: string;
  columns: readonly (readonly [column: string, read: (row: Row) => unknown])[];
}

export interface Statement {
  text: string;
  params: unknown[];
}

/**
 * Multi-row `INSERT … VALUES ($1, …), (…) ON CONFLICT DO NOTHING` statements for `rows`, as many
 * rows per statement as fit in `maxParameters`: inserting the same rows again inserts nothing.
 */
export function toInsertStatements<Row>(
  table: InsertTable<Row>,
  rows: readonly Row[],
  maxParameters = MAX_PARAMETERS_PER_STATEMENT,
): Statement[] {
  const width = table.columns.length;
  const rowsPerStatement = Math.floor(maxParameters / width);
  if (rowsPerStatement < 1)
    throw new Error(`${table.name}: ${width} columns exceed ${maxParameters} parameters`);
  const head = `INSERT INTO ${table.name} (${table.columns.map(([column]) => column).join(', ')}) VALUES `;
  const statements: Statement[] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const batch = rows.slice(start, start + rowsPerStatement);
    const tuples = batch.map(
      (_, index) => `(${table.columns.map((__, column) => `$${index * width + column + 1}`).join(', ')})`,
    );
    const params = batch.flatMap((row) => table.columns.map(([, read]) => read(row)));
    statements.push({ text: `${head}${tuples.join(', ')} ON CONFLICT DO NOTHING`, params });
  }
  return statements;
}
