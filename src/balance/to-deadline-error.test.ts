import { describe, expect, it } from 'vitest';
import { attempt, failure } from '../../test/helpers/balance-fixtures.js';
import { toDeadlineError } from './to-deadline-error.js';

describe('toDeadlineError', () => {
  const cause = failure('UPSTREAM_CONNECT_TIMEOUT');
  const base = {
    attempts: [attempt('a', 'UPSTREAM_CONNECT_TIMEOUT')],
    totalMs: 900,
    deadlineAt: 1900,
    cause,
  };

  it('is undefined while more than a millisecond is left', () => {
    expect(toDeadlineError({ ...base, now: 1898 })).toBeUndefined();
  });

  it('is a 504 DEADLINE_EXCEEDED naming total_ms and the attempts once the time is used up', () => {
    const error = toDeadlineError({ ...base, now: 1899 });
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504, cause });
    expect(error?.message).toBe(
      'total deadline of 900 ms reached: a: UPSTREAM_CONNECT_TIMEOUT (upstream_connect_timeout)',
    );
  });
});
