/**
 * Compact storage of a sparse weight matrix in JSON: the indices of the non-zero rows as base64 varint
 * deltas, their four weights as base64 little-endian int16 multiples of a quantization step.
 */
export interface EncodedRows {
  /** Number of stored rows. */
  count: number;
  /** base64 of varint-encoded gaps between consecutive row indices. */
  rows: string;
  /** base64 of int16 weights, four per stored row. */
  weights: string;
  /** Size of one int16 unit, so weight = unit * step. */
  step: number;
}

const INT16_MAX = 32767;

/** Stores every row whose largest absolute weight reaches `minWeight`. */
export function encodeRows(weights: Float32Array, minWeight: number): EncodedRows {
  const kept: number[] = [];
  let maxAbs = 0;
  for (let row = 0; row < weights.length / 4; row += 1) {
    let rowMax = 0;
    for (let tier = 0; tier < 4; tier += 1) rowMax = Math.max(rowMax, Math.abs(weights[row * 4 + tier] ?? 0));
    if (rowMax < minWeight || rowMax === 0) continue;
    kept.push(row);
    maxAbs = Math.max(maxAbs, rowMax);
  }
  const step = maxAbs > 0 ? maxAbs / INT16_MAX : 1;
  const units = new Int16Array(kept.length * 4);
  kept.forEach((row, index) => {
    for (let tier = 0; tier < 4; tier += 1)
      units[index * 4 + tier] = Math.round((weights[row * 4 + tier] ?? 0) / step);
  });
  return {
    count: kept.length,
    rows: Buffer.from(encodeGaps(kept)).toString('base64'),
    weights: Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('base64'),
    step,
  };
}

/** Rebuilds the dense rows × 4 matrix; rows that were not stored are zero. */
export function decodeRows(encoded: EncodedRows, rows: number): Float32Array {
  const dense = new Float32Array(rows * 4);
  const indices = decodeGaps(Buffer.from(encoded.rows, 'base64'), encoded.count);
  const bytes = Buffer.from(encoded.weights, 'base64');
  if (bytes.length !== encoded.count * 8)
    throw new Error(`model weights hold ${bytes.length} bytes, expected ${encoded.count * 8}`);
  indices.forEach((row, index) => {
    if (row >= rows) throw new Error(`model row ${row} is outside the ${rows} feature rows`);
    for (let tier = 0; tier < 4; tier += 1)
      dense[row * 4 + tier] = bytes.readInt16LE((index * 4 + tier) * 2) * encoded.step;
  });
  return dense;
}

function encodeGaps(rows: readonly number[]): Uint8Array {
  const bytes: number[] = [];
  let previous = -1;
  for (const row of rows) {
    let gap = row - previous - 1;
    previous = row;
    while (gap >= 0x80) {
      bytes.push((gap & 0x7f) | 0x80);
      gap >>>= 7;
    }
    bytes.push(gap);
  }
  return Uint8Array.from(bytes);
}

function decodeGaps(bytes: Uint8Array, count: number): number[] {
  const rows: number[] = [];
  let position = 0;
  let previous = -1;
  while (rows.length < count) {
    let gap = 0;
    let shift = 0;
    let byte = 0;
    do {
      if (position >= bytes.length) throw new Error('model row index data ends early');
      byte = bytes[position] ?? 0;
      position += 1;
      gap += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    previous += gap + 1;
    rows.push(previous);
  }
  return rows;
}
