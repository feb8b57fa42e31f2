/**
 * What a benchmark script shares: a log line on stderr with the seconds since it started, and undo
 * actions (processes, temp folders) run last-in first-out on success, error, SIGINT and SIGTERM.
 */
export function startBenchRun(name: string): {
  /** performance.now() at the start. */
  started: number;
  log: (message: string) => void;
  cleanups: (() => unknown)[];
  cleanUp: () => Promise<void>;
} {
  const started = performance.now();
  const log = (message: string): void => {
    const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(3);
    process.stderr.write(`[${name} ${seconds} s] ${message}\n`);
  };
  const cleanups: (() => unknown)[] = [];
  const cleanUp = async (): Promise<void> => {
    for (let action = cleanups.pop(); action !== undefined; action = cleanups.pop()) {
      try {
        await action();
      } catch (error) {
        log(`cleanup failed: ${(error as Error).message}`);
      }
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanUp().then(() => process.exit(130)));
  return { started, log, cleanups, cleanUp };
}
