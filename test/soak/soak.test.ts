import { expect, it } from 'vitest';
import { DEFAULT_SOAK_OPTIONS, runSoak } from './run-soak.js';
import { formatReport } from './soak-report.js';

/** `npm run soak` for 10 s in-process, so `npm test` covers it: same fleet, faults and bounds. */
it('soaks 10 s of faulty traffic and client aborts with no retry storm, no broken answer and nothing leaked', async () => {
  const report = await runSoak({ ...DEFAULT_SOAK_OPTIONS, seconds: 10 });
  expect(report.violations, formatReport(report)).toEqual([]);
  expect(report.requests.served).toBeGreaterThan(0);
  // Request 0 of seed 1 stalls mid-answer without streaming: it must have failed over.
  expect(report.attempts.maxPerRequest).toBeGreaterThan(1);
}, 60_000);
