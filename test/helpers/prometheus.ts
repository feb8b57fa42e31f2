/** The value of one Prometheus sample in a /metrics text, 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      return Number(line.split(' ').at(-1));
  }
  return 0;
}
