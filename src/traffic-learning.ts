import type { LlmDecisionEvent } from './classify/cascade-classifier.js';
import type { LocalModel } from './classify/local-model.js';
import { createTrafficRecorder, type TrafficRecorder } from './classify/traffic-recorder.js';
import { toTableRelativePath, type LoadedTable } from './config/load-routing-table.js';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';
import { createFileRecordLog } from './state/file-record-log.js';
import { createRedisRecordList } from './state/redis-record-list.js';

export interface TrafficLearningOptions {
  clock: Clock;
  logger: Logger;
  /** AUTOTIER_REDIS_URL, for `learn.to: redis`. */
  redisUrl: string | undefined;
}

export interface TrafficLearning {
  /** The cascade's `onLlmDecision` for a table and its model, or undefined when `classifier.learn` is off. */
  hookFor(loaded: LoadedTable, model: LocalModel): ((event: LlmDecisionEvent) => void) | undefined;
  /** Writes what is buffered and closes every sink. */
  close(): Promise<void>;
}

/**
 * `classifier.learn` across table reloads: one recorder per destination, kept while
 * tables keep naming it, so a reload does not reopen the file or the Redis connection.
 */
export function createTrafficLearning(options: TrafficLearningOptions): TrafficLearning {
  const recorders = new Map<string, TrafficRecorder>();
  const recorderFor = (loaded: LoadedTable): TrafficRecorder | undefined => {
    const { learn } = loaded.table.classifier;
    const path = learn.path === undefined ? undefined : toTableRelativePath(loaded.source, learn.path);
    if (learn.to === 'redis' && options.redisUrl === undefined) {
      options.logger.warn(
        'classifier.learn.to is redis but AUTOTIER_REDIS_URL is not set: nothing is recorded',
      );
      return undefined;
    }
    const destination = learn.to === 'redis' ? `redis:${learn.key}` : `file:${path ?? ''}`;
    const key = `${destination}:${learn.max_records}:${learn.buffer}:${learn.flush_ms}`;
    let recorder = recorders.get(key);
    if (recorder === undefined) {
      const sink =
        learn.to === 'redis'
          ? createRedisRecordList({
              url: options.redisUrl ?? '',
              key: learn.key,
              maxRecords: learn.max_records,
            })
          : createFileRecordLog({ path: path ?? '', maxRecords: learn.max_records });
      recorder = createTrafficRecorder({
        sink,
        clock: options.clock,
        logger: options.logger,
        buffer: learn.buffer,
        flushMs: learn.flush_ms,
      });
      recorders.set(key, recorder);
      options.logger.info('classifier.learn records LLM decisions', {
        to: destination,
        max_records: learn.max_records,
      });
    }
    return recorder;
  };
  return {
    hookFor(loaded, model) {
      const { classifier } = loaded.table;
      if (!classifier.learn.enabled || classifier.mode !== 'cascade') return undefined;
      const recorder = recorderFor(loaded);
      return recorder === undefined ? undefined : (event) => recorder.record(event, model);
    },
    async close() {
      await Promise.all([...recorders.values()].map((recorder) => recorder.close()));
    },
  };
}
