import { createSeededRandom } from '../src/shared/seeded-random.js';

/** FNV-1a over the model name and the input (text, or token ids), as the 32-bit seed of its vector. */
function toSeed(model: string, input: string | readonly number[]): number {
  let hash = 0x811c9dc5;
  const mix = (code: number): void => {
    hash = Math.imul(hash ^ code, 0x01000193) >>> 0;
  };
  for (let index = 0; index < model.length; index += 1) mix(model.charCodeAt(index));
  mix(0);
  if (typeof input === 'string')
    for (let index = 0; index < input.length; index += 1) mix(input.charCodeAt(index));
  else
    for (const id of input) {
      mix(id & 0xffff);
      mix(id >>> 16);
    }
  return hash;
}

/**
 * A deterministic unit vector for one input of a simulated embedding model: `full` uniform values in
 * [-1, 1) seeded by the model and the input, cut to `dimensions` (Matryoshka) and L2-normalized, as vLLM
 * normalizes after truncation. The same input always gets the same vector; different inputs unrelated ones.
 */
export function toEmbeddingVector(
  model: string,
  input: string | readonly number[],
  size: { full: number; dimensions: number },
): number[] {
  const random = createSeededRandom(toSeed(model, input));
  const values: number[] = [];
  for (let index = 0; index < size.full; index += 1) {
    const value = random() * 2 - 1;
    if (index < size.dimensions) values.push(value);
  }
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0)) || 1;
  return values.map((value) => value / norm);
}
