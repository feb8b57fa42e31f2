import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedBackend, type SimBackend } from '../../sim/index.js';
import { toConstantModelJson } from './constant-model.js';

const run = promisify(execFile);
/** Spawning tsx on a shared two-core machine takes seconds. */
const SPAWN_TIMEOUT_MS = 60_000;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function runCli(args: readonly string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'eval/cli.ts', ...args], {
      cwd: process.cwd(),
      timeout: SPAWN_TIMEOUT_MS,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npm run eval (eval/cli.ts)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'autotier-eval-cli-'));
  const file = join(folder, 'cases.jsonl');
  const model = join(folder, 'model.json');
  let backend: SimBackend;

  beforeAll(async () => {
    const lines = [
      JSON.stringify({ id: 'a', prompt: 'hello there', label: 'SIMPLE', lang: 'en' }),
      JSON.stringify({
        id: 'b',
        prompt: 'prove that there are infinitely many primes',
        label: 'EXPERT',
        lang: 'en',
      }),
      '{"id": "c", "prompt": "broken',
      JSON.stringify({ id: 'd', prompt: 'what should I cook tonight', label: 'EXPERT', lang: 'ko' }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    writeFileSync(model, JSON.stringify(toConstantModelJson([0, 0, 0, 0])));
    backend = await createSimulatedBackend({
      id: 'classifier',
      models: ['Qwen/Qwen3-8B'],
      responder: () => ({ content: '{"complexity":"EXPERT","reason":"x","needs_vision":false}' }),
    });
  });

  afterAll(async () => {
    await backend.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it(
    'prints the table, writes JSON and HTML, reports the malformed line and exits 1 under a floor',
    async () => {
      const json = join(folder, 'out.json');
      const html = join(folder, 'out.html');
      const result = await runCli([
        file,
        '--mode',
        'heuristic',
        '--json',
        json,
        '--html',
        html,
        '--min-accuracy',
        '0.99',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('3 cases scored (4 lines read, 1 malformed and skipped)');
      expect(result.stdout).toMatch(/line 3: not JSON/);
      expect(result.stdout).toContain('gold \\ predicted');
      expect(result.stderr).toMatch(/FAIL heuristic: accuracy .* is below --min-accuracy 99\.00%/);
      const report = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
      expect(report).toMatchObject({ n: 3, lines: 4, mode: 'heuristic', malformed: [{ line: 3 }] });
      for (const key of [
        'accuracy',
        'acceptable_accuracy',
        'macro_f1',
        'under_routing_rate',
        'over_routing_rate',
        'llm_call_rate',
      ]) {
        expect(report[key]).toBeGreaterThanOrEqual(0);
        expect(report[key]).toBeLessThanOrEqual(1);
      }
      expect(readFileSync(html, 'utf8')).toContain('<svg class="heatmap"');
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'exits 2 with the usage on a bad option',
    async () => {
      const result = await runCli([file, '--mode', 'quantum']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('unknown mode "quantum"');
      expect(result.stderr).toContain('usage: npm run eval');
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'runs llm mode against --classifier-url and passes its floors',
    async () => {
      const json = join(folder, 'llm.json');
      const args = [
        file,
        '--mode',
        'llm',
        '--classifier-url',
        backend.baseUrl,
        '--model',
        model,
        '--json',
        json,
      ];
      const result = await runCli([...args, '--deadline-ms', '5000', '--max-under-routing', '0']);
      expect(result.stderr).not.toContain('FAIL');
      expect(result.code).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8')) as {
        llm_call_rate: number;
        under_routing_rate: number;
      };
      expect(report).toMatchObject({ llm_call_rate: 1, under_routing_rate: 0 });
      expect(backend.stats().chatRequests).toBe(3);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'prints the cascade curve against --classifier-url: one LLM call a prompt, every threshold scored',
    async () => {
      const json = join(folder, 'curve.json');
      backend.resetStats();
      const args = [
        file,
        '--curve',
        '--gate',
        'confidence',
        '--thresholds',
        '0,1',
        '--classifier-url',
        backend.baseUrl,
      ];
      const result = await runCli([...args, '--model', model, '--deadline-ms', '5000', '--json', json]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('threshold   exact   under    over  LLM share');
      const { curves } = JSON.parse(readFileSync(json, 'utf8')) as {
        curves: { disagreement: string; llmFailures: number; points: Record<string, number>[] }[];
      };
      expect(curves[0]).toMatchObject({ disagreement: 'calibrated', llmFailures: 0 });
      // heuristic bounds settle the greeting and the proof at probability 1, so only the cooking
      // question (gold EXPERT, which the classifier says) is asked, and only at threshold 1
      const [never, always] = curves[0]?.points ?? [];
      expect(never).toMatchObject({ threshold: 0, llmShare: 0, over: 0 });
      expect(never?.['under']).toBeCloseTo(1 / 3, 6);
      expect(always).toMatchObject({ threshold: 1, exact: 1, under: 0, over: 0 });
      expect(always?.['llmShare']).toBeCloseTo(1 / 3, 6);
      expect(backend.stats().chatRequests).toBe(3);
    },
    SPAWN_TIMEOUT_MS,
  );
});
