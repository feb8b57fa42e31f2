/** Newline characters in `text`: the lines of a JSON-lines file whose last line ends in one. */
export function countLines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}
