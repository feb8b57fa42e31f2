import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toClassifyInput } from '../src/classify/classify-input.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { toLocalModelJson, type LocalModel } from '../src/classify/local-model.js';
import { toTrafficRecord, type TrafficRecord } from '../src/classify/traffic-record.js';
import { TIERS, type Tier } from '../src/shared/tier.js';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';
import { readLabeledExamples } from './labeled-example.js';
import { DEFAULT_TRAINING_CONFIG, fitWeights, prepareData, toLocalModel } from './model-fitting.js';
import { createSeededRandom } from './random.js';
import { trainToyModel } from './toy-model.js';
import { appendTrafficRows, toTrafficTarget } from './traffic-examples.js';

/** Made-up words decide the tier; `wibble` (EXPERT) appears only in the traffic records. */
const MARKERS: Record<Tier, string> = { SIMPLE: 'zork', MODERATE: 'blip', COMPLEX: 'quux', EXPERT: 'frob' };
const FILLER = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'tempor', 'magna', 'aliqua'];
const config = { ...DEFAULT_TRAINING_CONFIG, hashBits: 12, useSignals: false, epochs: 8, restarts: 1 };
const folder = createJsonlFolder('autotier-traffic-');
const random = createSeededRandom(3);

function prompt(marker: string): string {
  const words = Array.from({ length: 6 }, () => FILLER[Math.floor(random() * FILLER.length)] ?? 'lorem');
  words.splice(Math.floor(random() * words.length), 0, marker);
  return words.join(' ');
}

/** Weak lines: every tier's marker; `wibble` prompts labeled SIMPLE, the tier the traffic corrects. */
const baseFile = folder.writeLines('base.jsonl', [
  ...TIERS.flatMap((tier) =>
    Array.from({ length: 25 }, (_, index) => ({
      id: `${tier}-${index}`,
      prompt: prompt(MARKERS[tier]),
      label: tier,
    })),
  ),
  ...Array.from({ length: 6 }, (_, index) => ({
    id: `w-${index}`,
    prompt: prompt('wibble'),
    label: 'SIMPLE',
  })),
]);
const base = readLabeledExamples(baseFile);
const before = trainToyModel(base, config);

function recordsOf(model: LocalModel, count: number): TrafficRecord[] {
  const local = createLocalClassifier({ mode: 'learned', model });
  return Array.from({ length: count }, () => {
    const input = toClassifyInput({ messages: [{ role: 'user', content: prompt('wibble') }] });
    const event = {
      input,
      local: local.classifyInput(input),
      verdict: { complexity: 'EXPERT' as const, reason: 'r', needsVision: false },
    };
    return toTrafficRecord(event, model, 0);
  });
}

const wibbleShare = (model: LocalModel): number => {
  const local = createLocalClassifier({ mode: 'learned', model });
  return local.classifyLocal({ messages: [{ role: 'user', content: 'lorem wibble ipsum dolor' }] })
    .probabilities.EXPERT;
};

describe('refitting with classifier.learn records (--from-traffic)', () => {
  it('spreads a record target around the LLM label, as its misses are one tier off', () => {
    const [record] = recordsOf(before, 1);
    if (record === undefined) throw new Error('no record');
    expect(toTrafficTarget(record, 0.8)).toEqual([0, 0, expect.closeTo(0.2, 9), 0.8]);
    expect(toTrafficTarget({ ...record, llm: 'MODERATE' }, 0.8)).toEqual([
      expect.closeTo(0.1, 9),
      0.8,
      expect.closeTo(0.1, 9),
      0,
    ]);
  });

  it('learns what the LLM taught: prompts only the traffic labeled move towards its tier', () => {
    const data = prepareData(base, config);
    const traffic = appendTrafficRows(data, recordsOf(before, 60), { weight: 1, labelShare: 0.87 });
    expect(traffic.indices).toEqual(Array.from({ length: 60 }, (_, index) => base.length + index));
    const weights = fitWeights(traffic.data, [...base.map((_, index) => index), ...traffic.indices], config);
    const after = toLocalModel(traffic.data, weights, {
      temperature: 1,
      decision: { underPenalty: 0 },
      metadata: {},
    });
    expect(wibbleShare(before)).toBeLessThan(0.3);
    expect(wibbleShare(after)).toBeGreaterThan(0.6);
  });

  it('refuses records of another feature layout', () => {
    const data = prepareData(base, { ...config, hashBits: 10 });
    expect(() => appendTrafficRows(data, recordsOf(before, 1), { weight: 1, labelShare: 0.87 })).toThrow(
      /feature spec/,
    );
  });

  it('npm run train -- --from-traffic writes a model that learned them and reports before and after', async () => {
    const beforeFile = folder.path('before.json');
    writeFileSync(beforeFile, JSON.stringify(toLocalModelJson(before, 0)));
    const records = folder.writeLines('traffic.jsonl', recordsOf(before, 60));
    const holdout = folder.writeLines(
      'holdout.jsonl',
      Array.from({ length: 10 }, (_, index) => ({
        id: `h-${index}`,
        prompt: prompt('wibble'),
        label: 'EXPERT',
        acceptable: ['EXPERT'],
      })),
    );
    const out = folder.path('after.json');
    const args = [
      '--import',
      'tsx',
      'train/cli.ts',
      baseFile,
      '--from-traffic',
      records,
      '--before',
      beforeFile,
    ];
    const flags = [
      '--holdout',
      holdout,
      '--out',
      out,
      '--no-cv',
      '--restarts',
      '1',
      '--epochs',
      '8',
      '--hash-bits',
      '12',
      '--no-signals',
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [...args, ...flags], { timeout: 60_000 });
    expect(stdout).toMatch(/before \(.*before\.json\), .*holdout\.jsonl: local .*exact/);
    const model = JSON.parse(readFileSync(out, 'utf8')) as {
      metadata: { traffic: { records: number }; holdout: Record<string, { local: { exact: number } }> };
    };
    expect(model.metadata.traffic.records).toBe(60);
    expect(model.metadata.holdout[holdout]?.local.exact).toBeGreaterThan(0.5);
  }, 60_000);
});
