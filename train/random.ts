import type { Random } from '../src/shared/clock.js';

export { createSeededRandom } from '../src/shared/seeded-random.js';

/** Fisher-Yates shuffle of 0..count-1. */
export function toShuffledIndices(count: number, random: Random): number[] {
  const indices = Array.from({ length: count }, (_, index) => index);
  for (let index = count - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    const swap = indices[index] ?? 0;
    indices[index] = indices[other] ?? 0;
    indices[other] = swap;
  }
  return indices;
}

/** FNV-1a of a string, for splits that depend only on an example's id (stable across runs and files). */
export function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) hash = Math.imul(hash ^ id.charCodeAt(index), 16777619);
  return hash >>> 0;
}
