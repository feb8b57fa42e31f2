import { startAutotier } from './start-autotier.js';

/** Composition root: config -> dependencies -> app -> listen; stops cleanly on SIGTERM and SIGINT. */
async function main(): Promise<void> {
  const running = await startAutotier({ argv: process.argv.slice(2), env: process.env });
  const stop = (): void => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `autotier failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
