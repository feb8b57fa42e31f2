import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_KINDS, toHostileText } from '../../test/helpers/hostile-texts.js';
import { loadTextCounter } from './load-text-counter.js';
import { toSegmentRanges, toSegmentText } from './segment-ranges.js';
import type { TextCounter } from './text-counter.js';

/** English prose from the eval prompts, about `characters` long. */
function toEnglish(characters: number): string {
  const prompts = readFileSync('eval/prompts.jsonl', 'utf8')
    .split('\n')
    .filter((line) => line.includes('"lang": "en"') || line.includes('"lang":"en"'))
    .map((line) => (JSON.parse(line) as { prompt?: string }).prompt ?? '')
    .join('\n\n');
  return prompts.repeat(Math.ceil(characters / prompts.length)).slice(0, characters);
}

/** The sum of the segments' counts, each counted alone from its own slice as a counting thread does. */
async function countBySegments(counter: TextCounter, text: string, segments: number): Promise<number> {
  let tokens = 0;
  for (const range of toSegmentRanges(text, segments)) {
    const end = range.end - range.start;
    tokens += await counter.count(toSegmentText(text, range), { range: { start: 0, end } });
  }
  return tokens;
}

const texts: [string, string][] = [
  ['english', toEnglish(40_000)],
  ...HOSTILE_KINDS.map((kind): [string, string] => [kind, toHostileText(kind, 40_000, 7)]),
];

describe('splitting a text into segments counted apart', () => {
  let qwen: TextCounter;
  let o200k: TextCounter;
  beforeAll(async () => {
    const noYields = { yieldToEventLoop: () => Promise.resolve() };
    [qwen, o200k] = await Promise.all([
      loadTextCounter('qwen3', noYields),
      loadTextCounter('o200k_base', noYields),
    ]);
  }, 60_000);

  it('cuts contiguous ranges that cover the text, as many as asked when the text has the windows', () => {
    for (const [, text] of texts) {
      for (const segments of [1, 2, 3, 4, 7]) {
        const ranges = toSegmentRanges(text, segments);
        expect(ranges).toHaveLength(segments);
        expect(ranges[0]?.start).toBe(0);
        expect(ranges.at(-1)?.end).toBe(text.length);
        for (let index = 1; index < ranges.length; index++)
          expect(ranges[index]?.start).toBe(ranges[index - 1]?.end);
      }
    }
    expect(toSegmentRanges('short', 4)).toEqual([{ start: 0, end: 5 }]);
    expect(toSegmentRanges('', 2)).toEqual([{ start: 0, end: 0 }]);
  });

  it.each(texts)(
    'adds up to the in-process count of %s exactly, at any number of segments',
    async (_kind, text) => {
      const whole = await qwen.count(text);
      for (const segments of [2, 3, 4, 5, 7])
        expect(await countBySegments(qwen, text, segments), `${segments}`).toBe(whole);
      expect(await countBySegments(o200k, text, 3)).toBe(await o200k.count(text));
    },
  );
});
