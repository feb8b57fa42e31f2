/**
 * Where a committed model file and a retrained one first differ (`npm run train -- --check`), with 60
 * characters of each from there; undefined when they are equal byte for byte.
 */
export function describeDifference(committed: string, retrained: string): string | undefined {
  if (committed === retrained) return undefined;
  let offset = 0;
  while (offset < committed.length && committed[offset] === retrained[offset]) offset += 1;
  const excerpt = (text: string): string => JSON.stringify(text.slice(offset, offset + 60));
  return `they differ from character ${offset}: committed ${excerpt(committed)}, retrained ${excerpt(retrained)}`;
}
