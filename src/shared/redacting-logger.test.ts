import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from './logger.js';
import { createRedactingLogger } from './redacting-logger.js';

describe('the redacting logger', () => {
  it('masks credentials in the message and in fields at any depth, and keeps the rest', () => {
    const recording = createRecordingLogger();
    const logger = createRedactingLogger(recording);
    logger.error('connect redis://:hunter2@cache:6379 failed', {
      error: new Error('token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 rejected'),
      nested: { list: ['password=letmein', 42, null], tier: 'COMPLEX' },
      duration_ms: 12,
    });
    const text = JSON.stringify(recording.lines);
    expect(text).not.toMatch(/hunter2|ghp_A1b2|letmein/);
    expect(recording.lines[0]?.fields).toMatchObject({ duration_ms: 12, nested: { tier: 'COMPLEX' } });
  });

  it('is wrapped once however often it is wrapped', () => {
    const once = createRedactingLogger(createRecordingLogger());
    expect(createRedactingLogger(once)).toBe(once);
  });
});
