import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { RecordSink } from '../state/record-sink.js';
import type { LlmDecisionEvent } from './cascade-classifier.js';
import type { LocalModel } from './local-model.js';
import { toTrafficRecord } from './traffic-record.js';

export interface TrafficRecorderOptions {
  sink: RecordSink;
  clock: Clock;
  logger: Logger;
  /** Events waiting for the writer; past this, new ones are dropped and counted. */
  buffer: number;
  /** How often the buffer is written, ms. */
  flushMs: number;
}

export interface TrafficRecorder {
  /** Queues one LLM-decided request; returns at once (features are computed when the buffer is written). */
  record(event: LlmDecisionEvent, model: LocalModel): void;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  /** Records written, and dropped because the buffer was full or a write failed. */
  stats(): { written: number; dropped: number };
  /** Stops the timer, writes what is left and closes the sink. */
  close(): Promise<void>;
}

interface Pending {
  event: LlmDecisionEvent;
  model: LocalModel;
  time: number;
}

/**
 * `classifier.learn`: buffers LLM decisions in memory and writes them as records
 * (hashed features, labels, never text) every `flushMs`, off the request's path; a full buffer drops.
 */
export function createTrafficRecorder(options: TrafficRecorderOptions): TrafficRecorder {
  let pending: Pending[] = [];
  let written = 0;
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return writing;
    const lines = batch.map(({ event, model, time }) => JSON.stringify(toTrafficRecord(event, model, time)));
    writing = writing
      .then(() => options.sink.append(lines))
      .then(
        () => {
          written += lines.length;
        },
        (error: unknown) => {
          dropped += lines.length;
          options.logger.warn('classifier.learn could not write records', {
            records: lines.length,
            error: error instanceof Error ? error.message : String(error),
          });
        },
      );
    return writing;
  };
  const timer = setInterval(() => void flush(), options.flushMs);
  timer.unref();
  return {
    record(event, model) {
      if (pending.length >= options.buffer) dropped += 1;
      else pending.push({ event, model, time: options.clock.now() });
    },
    flush,
    stats: () => ({ written, dropped }),
    async close() {
      clearInterval(timer);
      await flush();
      await options.sink.close();
    },
  };
}
