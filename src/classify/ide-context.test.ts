import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toTierRank } from '../shared/tier.js';
import type { ClassifyRequest } from './decision.js';
import { createLocalClassifier } from './local-classifier.js';
import { loadLocalModel } from './local-model.js';

const model = loadLocalModel(fileURLToPath(new URL('./model/local-model.json', import.meta.url)));

const IDE_SYSTEM_PROMPT =
  "You are an AI programming assistant integrated in the user's IDE. Follow the user's requirements " +
  'carefully. Keep answers short and impersonal. Use Markdown code blocks with the language name. Only ' +
  'change the code the user asks about; never rewrite the rest of the file.';

/** About 6 kB of an ordinary TypeScript module: the file an IDE attaches to every request about it. */
const TYPESCRIPT_FILE = Array.from(
  { length: 17 },
  (_, index) => `export interface RoundState${index} {
  /** Rounds played so far. */
  run: number;
  scores: readonly number[];
}

export function advanceRound${index}(state: RoundState${index}, score: number): RoundState${index} {
  const run = state.run + 1;
  const scores = [...state.scores, score].slice(-${index + 4});
  if (scores.length === 0) throw new Error('no score');
  return { run, scores };
}
`,
).join('\n');

/** The request an IDE sends: its system prompt, then the file in a fence and the task after it. */
const askAboutFile = (task: string): ClassifyRequest => ({
  messages: [
    { role: 'system', content: IDE_SYSTEM_PROMPT },
    { role: 'user', content: `\`\`\`ts src/game/rounds.ts\n${TYPESCRIPT_FILE}\`\`\`\n\n${task}` },
  ],
});

describe('local mode with an IDE context', () => {
  const classifier = createLocalClassifier({ mode: 'local', model });

  it('routes a small task about an attached 6 kB file by the task, not by the file', () => {
    expect(TYPESCRIPT_FILE.length).toBeGreaterThan(5500);
    expect(TYPESCRIPT_FILE.length).toBeLessThan(7000);
    for (const task of [
      'rename the variable `run` to `round`',
      'add a one-line comment above advanceRound0',
      'what does this file do? two sentences',
    ]) {
      const { tier, signals } = classifier.classifyLocal(askAboutFile(task));
      expect(signals, task).toContain('small_task_on_code');
      expect(tier, task).toBe('MODERATE');
    }
  });

  it('still routes real work on the same file to COMPLEX or above', () => {
    const { tier, signals } = classifier.classifyLocal(
      askAboutFile(
        'write unit tests covering every branch of advanceRound3, then refactor the module so all rounds share one generic implementation',
      ),
    );
    expect(signals).not.toContain('small_task_on_code');
    expect(toTierRank(tier)).toBeGreaterThanOrEqual(toTierRank('COMPLEX'));
  });
});
