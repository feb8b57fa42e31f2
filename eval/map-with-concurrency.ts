export interface ConcurrencyOptions {
  /** Calls in flight at once, at least 1. */
  limit: number;
  /** Called after each item finishes, with the number finished so far. */
  onSettled?: (done: number) => void;
}

/**
 * Maps `items` through `task` with at most `limit` calls in flight; results keep the input order.
 * The first rejection rejects the whole map (workers stop picking new items).
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  task: (item: T, index: number) => Promise<R>,
  options: ConcurrencyOptions,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
      done += 1;
      options.onSettled?.(done);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(options.limit), items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
