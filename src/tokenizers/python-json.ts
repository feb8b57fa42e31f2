/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it (separators ", " and ": "), which
 * is what the chat template's `tojson` puts in the prompt. Iterative, so any nesting depth is safe.
 */
export function toPythonJson(value: unknown): string {
  const parts: string[] = [];
  /** Work items: a value to write, or a literal text to append. */
  const stack: ({ value: unknown } | { text: string })[] = [{ value }];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === undefined) break;
    if ('text' in item) {
      parts.push(item.text);
      continue;
    }
    const current = item.value;
    if (Array.isArray(current)) {
      pushEntries(stack, { open: '[', close: ']', entries: current.map((entry: unknown) => ['', entry]) });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current).filter(([, entry]) => entry !== undefined);
      pushEntries(stack, {
        open: '{',
        close: '}',
        entries: entries.map(([key, entry]) => [`${JSON.stringify(key)}: `, entry]),
      });
    } else parts.push(toScalar(current));
  }
  return parts.join('');
}

function pushEntries(
  stack: ({ value: unknown } | { text: string })[],
  container: { open: string; close: string; entries: [string, unknown][] },
): void {
  stack.push({ text: container.close });
  for (let index = container.entries.length - 1; index >= 0; index--) {
    const [prefix, value] = container.entries[index] ?? ['', null];
    stack.push({ value });
    stack.push({ text: `${index === 0 ? '' : ', '}${prefix}` });
  }
  stack.push({ text: container.open });
}

function toScalar(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'null';
}
