/**
 * Embedding vectors as OpenAI's `encoding_format: base64` sends them: the float32 values, little-endian,
 * in base64 (what the openai SDK decodes with `new Float32Array(buffer)`; vLLM encodes the same way).
 */
export function toFloat32Base64(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) bytes.writeFloatLE(value, index * 4);
  return bytes.toString('base64');
}

/** The float32 values of a base64 vector; undefined when its length is not a whole number of floats. */
export function fromFloat32Base64(text: string): number[] | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return undefined;
  const values = new Array<number>(bytes.length / 4);
  for (let index = 0; index < values.length; index += 1) values[index] = bytes.readFloatLE(index * 4);
  return values;
}
