// Child-process entry of the load helpers. Two ways to run it:
//   `node --import tsx bench/load-worker.ts '<job json>'` runs one job and prints one JSON result line;
//   with an IPC channel and no argument it serves `{ id, job }` messages one after another and answers
//   `{ id, result }` or `{ id, error }`, so a whole bench pays the start-up (about 2 s under tsx) once.
// Running the load generator in its own process keeps its CPU work off the measured servers' event loops.
import { loadJobSchema, type LoadResult } from './load-schema.js';
import { runAbuseJob } from './run-abuse-job.js';
import { runLatencyJob } from './run-latency-job.js';
import { runRateJob } from './run-rate-job.js';
import { runStreamJob } from './run-stream-job.js';

async function runJob(input: unknown): Promise<LoadResult> {
  const job = loadJobSchema.parse(input);
  switch (job.kind) {
    case 'latency':
      return runLatencyJob(job);
    case 'rate':
      return runRateJob(job);
    case 'stream':
      return runStreamJob(job);
    case 'abuse':
      return runAbuseJob(job);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function serve(send: NonNullable<typeof process.send>): void {
  let queue = Promise.resolve();
  process.on('message', (message: { id: number; job: unknown }) => {
    queue = queue.then(() =>
      runJob(message.job).then(
        (result) => void send({ id: message.id, result }),
        (error: unknown) => void send({ id: message.id, error: describe(error) }),
      ),
    );
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}

const argument = process.argv[2];
if (argument === undefined && process.send !== undefined) serve(process.send.bind(process));
else
  runJob(JSON.parse(argument ?? 'null')).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${describe(error)}\n`);
      process.exitCode = 1;
    },
  );
