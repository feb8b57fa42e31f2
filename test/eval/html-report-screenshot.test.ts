import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEvalReport, type EvalReport } from '../../eval/eval-report.js';
import { toHtmlReport } from '../../eval/html-report.js';
import { toScoredCases, type CaseSpec } from './scored-case-fixture.js';

const ARTIFACT = join(process.cwd(), 'artifacts', 'eval-report.png');
const WEIGHTS = { SIMPLE: 1, MODERATE: 1.8, COMPLEX: 3, EXPERT: 12 };

function toSpecs(): CaseSpec[] {
  const grid: [CaseSpec['gold'], CaseSpec['predicted'], number][] = [
    ['SIMPLE', 'SIMPLE', 30],
    ['SIMPLE', 'MODERATE', 8],
    ['SIMPLE', 'COMPLEX', 1],
    ['MODERATE', 'SIMPLE', 3],
    ['MODERATE', 'MODERATE', 25],
    ['MODERATE', 'COMPLEX', 6],
    ['COMPLEX', 'MODERATE', 9],
    ['COMPLEX', 'COMPLEX', 22],
    ['COMPLEX', 'EXPERT', 4],
    ['EXPERT', 'MODERATE', 2],
    ['EXPERT', 'COMPLEX', 7],
    ['EXPERT', 'EXPERT', 15],
  ];
  return grid.flatMap(([gold, predicted, count]) =>
    Array.from({ length: count }, (_, index) => ({
      gold,
      predicted,
      prompt: index === 0 ? `Prove <b>this</b> & explain 证明 — ${gold} case` : `${gold} prompt ${index}`,
      facets: { source: 'autotier', lang: index % 2 === 0 ? 'en' : 'zh', kind: 'single' },
      decision: { signals: ['proof_request', 'math_notation'], confidence: 0.7 },
      totalMs: 0.2 + index / 10,
    })),
  );
}

function toReport(label: string): EvalReport {
  return toEvalReport({
    run: {
      label,
      mode: 'local',
      file: 'eval/prompts.jsonl',
      table: 'routing-tables/default.yaml',
      model: null,
    },
    cases: toScoredCases(toSpecs()),
    malformed: [{ line: 7, message: 'label: Invalid option' }],
    weights: WEIGHTS,
    worst: 12,
  });
}

describe('HTML report in headless Chromium', () => {
  let browser: Browser;
  const folder = mkdtempSync(join(tmpdir(), 'autotier-eval-html-'));

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('renders the heatmap, the per-tier bars and the misroutes, and makes no network request', async () => {
    const path = join(folder, 'report.html');
    writeFileSync(path, toHtmlReport([toReport('local')]));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) outside.push(request.url());
    });
    await page.goto(pathToFileURL(path).href);
    await expect(page.title()).resolves.toContain('autotier eval');
    expect(await page.locator('svg.heatmap rect.cell').count()).toBe(16);
    expect(await page.locator('svg.tier-bars rect.bar').count()).toBe(12);
    expect(await page.locator('svg.heatmap text.axis-title').allTextContents()).toEqual([
      'predicted tier →',
      'gold tier ↓',
    ]);
    expect(
      await page.locator('rect.cell[data-gold="SIMPLE"][data-predicted="SIMPLE"] + text').textContent(),
    ).toBe('30');
    await expect(page.locator('svg.heatmap').isVisible()).resolves.toBe(true);
    await expect(page.locator('.heatmap-legend').isVisible()).resolves.toBe(true);
    expect(await page.locator('table.misroutes tbody tr').count()).toBe(12);
    expect(await page.locator('table.misroutes').textContent()).toContain('Prove <b>this</b> & explain 证明');
    expect(await page.locator('table.misroutes b').count()).toBe(0);
    expect(outside).toEqual([]);
    mkdirSync(join(process.cwd(), 'artifacts'), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    expect(statSync(ARTIFACT).size).toBeGreaterThan(30_000);
    await page.close();
  });

  it('shows a comparison table and one section per run when comparing', async () => {
    const path = join(folder, 'compare.html');
    writeFileSync(path, toHtmlReport([toReport('heuristic'), toReport('local')]));
    const page = await browser.newPage();
    await page.goto(pathToFileURL(path).href);
    expect(await page.locator('section.run').count()).toBe(2);
    expect(await page.locator('svg.heatmap rect.cell').count()).toBe(32);
    expect(await page.locator('table.comparison thead th').allTextContents()).toEqual([
      '',
      'heuristic',
      'local',
    ]);
    await page.close();
  });
});
