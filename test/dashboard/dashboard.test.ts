import type { z } from 'zod';
import type { apiKeySchema } from '../../src/config/table-part-schemas.js';
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { launchChromium } from '../helpers/chromium.js';
import { postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
/** The page polls every 2 s: allow two polls and some slack. */
const UPDATE_MS = 6000;

const ADMIN_KEY = 'sk-ops-dashboard-test';
const APP_KEY = 'sk-app-dashboard-test';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

type ApiKeyInput = z.input<typeof apiKeySchema>;

/** `flaky` answers 503 and falls back to `steady`, so the page has a cooldown and fallbacks to show. */
async function startFleet(apiKeys: ApiKeyInput[] = []): Promise<Stack> {
  return startStack({
    backends: [
      { id: 'flaky', models: ['sim-model'], fault: { name: 'error_503' } },
      { id: 'steady', models: ['sim-model'], latency: { ttftMs: 30 } },
    ],
    random: () => 0,
    classifier: () => createLocalClassifier({ mode: 'heuristic' }),
    table: (urls) => ({
      ...simpleTable({ urls, group: ['flaky'], fallback: ['steady'], cooldownMs: 60_000 }),
      ...(apiKeys.length === 0 ? {} : { api_keys: apiKeys }),
    }),
  });
}

async function chat(stack: Stack, model: string, content: string): Promise<void> {
  const response = await postChat(stack.url, { model, messages: [{ role: 'user', content }] });
  expect(response.status).toBe(200);
  await response.body?.cancel();
}

const testId = (page: Page, id: string) => page.getByTestId(id);

async function countOf(page: Page, id: string): Promise<number> {
  return Number(await testId(page, id).getAttribute('data-count'));
}

describe('operator dashboard in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('without API keys', () => {
    let stack: Stack;
    let page: Page;
    const pageErrors: string[] = [];
    beforeAll(async () => {
      stack = await startFleet();
      page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      page.setDefaultTimeout(UPDATE_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });
    afterAll(async () => {
      await page?.close();
      await stack?.close();
    });

    it('redirects /dashboard to /dashboard/ and serves the page there', async () => {
      const bare = await fetch(`${stack.url}/dashboard`, { redirect: 'manual' });
      expect(bare.status).toBe(302);
      expect(bare.headers.get('location')).toBe('/dashboard/');
      const page = await fetch(`${stack.url}/dashboard/`, { redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('dashboard.js');
    });

    it('lists every deployment as healthy when the page opens', async () => {
      await page.goto(`${stack.url}/dashboard/`);
      const rows = testId(page, 'deployment-row');
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.evaluateAll((all) => all.map((row) => row.dataset['deployment']))).toEqual([
        'flaky',
        'steady',
      ]);
      expect(await testId(page, 'health-badge').allTextContents()).toEqual(['healthy', 'healthy']);
      await expect.poll(() => testId(page, 'status').getAttribute('data-state')).toBe('ok');
      expect(await testId(page, 'key-panel').isHidden()).toBe(true);
    });

    it('shows new decisions, tier shares, the cooldown and fallbacks as traffic arrives', async () => {
      await chat(stack, 'tier:SIMPLE', 'hello there');
      await chat(stack, 'tier:SIMPLE', 'what time zone is Berlin in?');
      await chat(stack, 'tier:COMPLEX', 'compare two designs');
      await chat(stack, 'auto', 'hi, how are you?');
      await chat(
        stack,
        'auto',
        'Prove that the sum of the first n odd numbers is n squared, then write a TypeScript function that checks it for n up to 1000 and explain its complexity.',
      );

      await expect.poll(() => testId(page, 'decision-row').count(), { timeout: UPDATE_MS }).toBe(5);
      expect(await countOf(page, 'share-tier-SIMPLE')).toBeGreaterThanOrEqual(2);
      expect(await countOf(page, 'share-tier-COMPLEX')).toBeGreaterThanOrEqual(1);
      expect(await countOf(page, 'share-cause-override')).toBe(3);
      expect(await countOf(page, 'share-cause-heuristic')).toBe(2);
      const newest = testId(page, 'decision-row').first();
      expect(await newest.getByTestId('tier').textContent()).toMatch(/^(SIMPLE|MODERATE|COMPLEX|EXPERT)$/);
      expect(await newest.textContent()).toContain('steady');
      expect(await newest.textContent()).not.toContain('Prove that');

      const flaky = page.locator('[data-testid=deployment-row][data-deployment=flaky]');
      expect(await flaky.getAttribute('data-health')).toBe('cooling_down');
      expect(await flaky.getByTestId('cooldown-countdown').textContent()).toMatch(/^\d+s$|^1m/);
      expect(Number(await testId(page, 'fallbacks-per-minute').textContent())).toBeGreaterThanOrEqual(1);
      expect(await testId(page, 'llm-share').textContent()).toBe('0%');
    });

    it('shows rejected requests as rejected, apart from the routed decisions and the tier shares', async () => {
      const unknown = await fetch(`${stack.url}/v1/audio/speech`, { method: 'POST', body: '{}' });
      expect(unknown.status).toBe(404);
      const latin1 = await fetch(`${stack.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=latin1' },
        body: '{}',
      });
      expect(latin1.status).toBe(415);

      const rejected = page.locator('[data-testid=decision-row][data-outcome=rejected]');
      await expect.poll(() => rejected.count(), { timeout: UPDATE_MS }).toBe(2);
      const newest = rejected.first();
      expect(await newest.getByTestId('tier').textContent()).toBe('rejected');
      expect(await newest.getByTestId('call').textContent()).toBe('POST /v1/chat/completions');
      expect(await newest.textContent()).toContain('415 UNSUPPORTED_MEDIA_TYPE');
      expect(await rejected.last().getByTestId('call').textContent()).toBe('POST /v1/audio/speech');
      expect(await page.locator('[data-testid=decision-row][data-outcome=routed]').count()).toBe(5);

      expect(await testId(page, 'rejected-count').textContent()).toBe('2');
      expect(await testId(page, 'request-count').textContent()).toBe('5');
      expect(await countOf(page, 'share-rejected-NOT_FOUND')).toBe(1);
      expect(await countOf(page, 'share-rejected-UNSUPPORTED_MEDIA_TYPE')).toBe(1);
      expect(await testId(page, 'share-tier-none').count()).toBe(0);
    });

    it('explains a pasted prompt with its tier, rules, deployment order and token count', async () => {
      await testId(page, 'explain-prompt').fill(
        'Summarize this sentence in five words: the cat sat on the mat.',
      );
      await testId(page, 'explain-min-tier').selectOption('EXPERT');
      await testId(page, 'explain-submit').click();

      await testId(page, 'explain-tier').waitFor({ timeout: UPDATE_MS });
      expect(await testId(page, 'explain-tier').textContent()).toBe('EXPERT');
      const rule = page.locator('[data-testid=explain-rule][data-rule=min_tier]');
      expect(await rule.textContent()).toContain('→ EXPERT');
      expect(await testId(page, 'explain-deployments').textContent()).toMatch(/flaky.*steady/);
      expect(Number(await testId(page, 'explain-tokens').textContent())).toBeGreaterThan(5);
      expect(await testId(page, 'explain-cause').textContent()).toBe('heuristic');

      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}dashboard.png`, fullPage: true });
      expect(pageErrors).toEqual([]);
    });
  });

  describe('with a stream that breaks and is continued', () => {
    let stack: Stack;
    let page: Page;
    beforeAll(async () => {
      stack = await startStack({
        backends: [
          { id: 'cuts', models: ['sim-model'], fault: { name: 'cut_mid_stream', params: { after: 3 } } },
          { id: 'steady', models: ['sim-model'] },
        ],
        random: () => 0,
        table: (urls) => {
          const table = simpleTable({ urls, group: ['cuts', 'steady'] });
          const deployments = table.deployments.map((entry) => ({ ...entry, continuation: true }));
          return { ...table, deployments };
        },
      });
      page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      page.setDefaultTimeout(UPDATE_MS);
    });
    afterAll(async () => {
      await page?.close();
      await stack?.close();
    });

    it('counts the continued stream', async () => {
      await page.goto(`${stack.url}/dashboard/`);
      await expect.poll(() => testId(page, 'continued-count').textContent()).toBe('0');
      const response = await postChat(stack.url, {
        model: 'tier:SIMPLE',
        messages: [{ role: 'user', content: 'hello there' }],
        stream: true,
      });
      expect(await response.text()).toContain('data: [DONE]');
      await expect
        .poll(() => testId(page, 'continued-count').textContent(), { timeout: UPDATE_MS })
        .toBe('1');
      expect(await testId(page, 'continued-detail').textContent()).toContain('of 1 broken streams');
    });
  });

  describe('with an admin key configured', () => {
    let stack: Stack;
    let page: Page;
    beforeAll(async () => {
      stack = await startFleet([
        { name: 'ops', sha256: sha256(ADMIN_KEY), admin: true },
        { name: 'app', sha256: sha256(APP_KEY) },
      ]);
      page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      page.setDefaultTimeout(UPDATE_MS);
    });
    afterAll(async () => {
      await page?.close();
      await stack?.close();
    });

    async function submitKey(key: string): Promise<void> {
      await testId(page, 'key-input').fill(key);
      await testId(page, 'key-submit').click();
    }

    it('asks for the key, refuses wrong and non-admin keys, and shows data with the admin key', async () => {
      await page.goto(`${stack.url}/dashboard/`);
      await testId(page, 'key-panel').waitFor({ state: 'visible', timeout: UPDATE_MS });
      expect(await testId(page, 'deployment-row').count()).toBe(0);

      await submitKey('sk-wrong');
      await expect.poll(() => testId(page, 'key-error').textContent()).toContain('unknown API key');
      expect(await testId(page, 'deployment-row').count()).toBe(0);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}dashboard-key.png` });

      await submitKey(APP_KEY);
      await expect.poll(() => testId(page, 'key-error').textContent()).toContain('not an admin key');

      await submitKey(ADMIN_KEY);
      await testId(page, 'key-panel').waitFor({ state: 'hidden', timeout: UPDATE_MS });
      await expect.poll(() => testId(page, 'deployment-row').count()).toBe(2);
      expect(await page.evaluate(() => sessionStorage.getItem('autotier.dashboard.key'))).toBe(ADMIN_KEY);

      await testId(page, 'explain-prompt').fill('hello there');
      await testId(page, 'explain-submit').click();
      await testId(page, 'explain-tier').waitFor({ timeout: UPDATE_MS });
      expect(await testId(page, 'explain-error').isHidden()).toBe(true);

      // The refused keys are on the page as rejected requests; the 403 names the key.
      const refused = page.locator('[data-outcome=rejected][title^="key app"]');
      await expect.poll(() => refused.count(), { timeout: UPDATE_MS }).toBeGreaterThanOrEqual(1);
      expect(await refused.first().textContent()).toContain('403 FORBIDDEN');
    });
  });
});
