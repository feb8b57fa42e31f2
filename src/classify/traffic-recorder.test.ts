import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createRecordingLogger } from '../shared/logger.js';
import { DEFAULT_MODEL_PATH } from '../project-paths.js';
import type { RecordSink } from '../state/record-sink.js';
import { toClassifyInput } from './classify-input.js';
import { createLocalClassifier } from './local-classifier.js';
import { loadLocalModel } from './local-model.js';
import { createTrafficRecorder } from './traffic-recorder.js';

const model = loadLocalModel(DEFAULT_MODEL_PATH);
const local = createLocalClassifier({ mode: 'local', model });

function eventOf(text: string) {
  const input = toClassifyInput({ messages: [{ role: 'user', content: text }] });
  return {
    input,
    local: local.classifyInput(input),
    verdict: { complexity: 'COMPLEX' as const, reason: 'r', needsVision: false },
  };
}

function memorySink(fail = false): RecordSink & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    append: (batch) =>
      fail ? Promise.reject(new Error('disk full')) : (lines.push(...batch), Promise.resolve()),
    close: () => Promise.resolve(),
  };
}

describe('the traffic recorder', () => {
  it('returns at once and writes nothing until it flushes', async () => {
    const sink = memorySink();
    const recorder = createTrafficRecorder({
      sink,
      clock: createManualClock(5),
      logger: createRecordingLogger(),
      buffer: 10,
      flushMs: 3_600_000,
    });
    recorder.record(eventOf('hello there'), model);
    expect(sink.lines).toHaveLength(0);
    await recorder.flush();
    expect(sink.lines).toHaveLength(1);
    expect(JSON.parse(sink.lines[0] ?? '{}')).toMatchObject({ llm: 'COMPLEX', time: 5 });
    expect(sink.lines[0]).not.toContain('hello');
    await recorder.close();
  });

  it('drops and counts records past its buffer, and records a failed write as dropped', async () => {
    const sink = memorySink();
    const recorder = createTrafficRecorder({
      sink,
      clock: createManualClock(0),
      logger: createRecordingLogger(),
      buffer: 2,
      flushMs: 3_600_000,
    });
    for (const text of ['a', 'b', 'c', 'd']) recorder.record(eventOf(text), model);
    await recorder.close();
    expect(sink.lines).toHaveLength(2);
    expect(recorder.stats()).toEqual({ written: 2, dropped: 2 });

    const logger = createRecordingLogger();
    const failing = createTrafficRecorder({
      sink: memorySink(true),
      clock: createManualClock(0),
      logger,
      buffer: 5,
      flushMs: 3_600_000,
    });
    failing.record(eventOf('a'), model);
    await failing.close();
    expect(failing.stats()).toEqual({ written: 0, dropped: 1 });
    expect(logger.lines.map((line) => line.message)).toContain('classifier.learn could not write records');
  });
});
