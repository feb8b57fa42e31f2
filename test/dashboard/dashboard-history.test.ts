import { loadShippedClassifier } from '../helpers/shipped-classifier.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistorySnapshot } from '../../src/observe/activity-history.js';
import type { ResponderRequest } from '../../sim/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { postChat, startStack, type Stack } from '../helpers/start-stack.js';
import { TIER_FLEET_TIMEOUTS } from '../helpers/tier-fleet.js';

/** Screenshots land here (git-ignored), for a person to look at after a run. */
const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
/** The page polls every 2 s: allow two polls and some slack. */
const UPDATE_MS = 6000;

const IDS = ['classifier', 'small', 'medium', 'large', 'huge', 'flaky', 'broken'];

/**
 * One deployment per tier; SIMPLE tries `flaky` (always 503) first and falls back to `small`;
 * MODERATE has only `broken` (always 503), so its requests fail. Every `auto` request asks the
 * classifier LLM (threshold 1), whose verdicts the test scripts; the classification cache is on.
 */
async function startHistoryStack(): Promise<Stack> {
  const shipped = await loadShippedClassifier();
  return startStack({
    backends: IDS.map((id) => ({
      id,
      models: [id],
      ...(id === 'flaky' || id === 'broken' ? { fault: { name: 'error_503' } } : {}),
    })),
    random: () => 0,
    classifier: (loaded) => shipped.forTable(loaded),
    table: (urls) => {
      const tier = (group: string[], fallback: string[] = []) => ({
        group,
        fallback,
        timeouts: TIER_FLEET_TIMEOUTS,
        max_tokens: { cap: 64, default: 16 },
      });
      return {
        deployments: IDS.map((id) => ({ id, model: id, base_url: urls[id] ?? '', context_window: 32768 })),
        tiers: {
          SIMPLE: tier(['flaky'], ['small']),
          MODERATE: tier(['broken']),
          COMPLEX: tier(['large']),
          EXPERT: tier(['huge']),
        },
        balancer: {
          cooldown_ms: 60_000,
          retry: { max_attempts: 2, backoff_base_ms: 10, backoff_max_ms: 20, retry_after_cap_ms: 100 },
        },
        classifier: {
          mode: 'cascade',
          deployment: 'classifier',
          gate: 'confidence',
          threshold: 1,
          deadline_ms: 2000,
          cache: { max_entries: 100, ttl_ms: 600_000 },
        },
      };
    },
  });
}

/** The classifier LLM's verdict: EXPERT for a proof, SIMPLE for anything else. */
function scriptVerdicts(stack: Stack): void {
  stack.sim('classifier').setResponder((request: ResponderRequest) => {
    const body = request.body as { messages: { content: string }[] };
    const asked = JSON.parse(body.messages[1]?.content ?? '{}') as { last_user_message?: string };
    const complexity = (asked.last_user_message ?? '').startsWith('Prove') ? 'EXPERT' : 'SIMPLE';
    return { content: JSON.stringify({ complexity, reason: 'scripted', needs_vision: false }) };
  });
}

interface Sent {
  status: number;
  requestId: string;
  headers: Headers;
}

async function chat(
  stack: Stack,
  input: { model: string; content: string; headers?: Record<string, string> },
): Promise<Sent> {
  const response = await postChat(
    stack.url,
    { model: input.model, messages: [{ role: 'user', content: input.content }] },
    input.headers,
  );
  await response.arrayBuffer();
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? '',
    headers: response.headers,
  };
}

/**
 * Pixels of a PNG that differ from its top-left pixel (the background), counted by the browser
 * itself on a blank page: a blank chart area counts (close to) 0.
 */
async function inkedPixels(browser: Browser, png: Buffer): Promise<{ inked: number; total: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      if (context === null) throw new Error('no 2d context');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const [r, g, b] = [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0];
      let inked = 0;
      for (let index = 0; index < data.length; index += 4) {
        const distance =
          Math.abs((data[index] ?? 0) - r) +
          Math.abs((data[index + 1] ?? 0) - g) +
          Math.abs((data[index + 2] ?? 0) - b);
        if (distance > 60) inked += 1;
      }
      return { inked, total: image.width * image.height };
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}

const testId = (page: Page, id: string) => page.getByTestId(id);
const chartAttribute = async (page: Page, id: string, name: string): Promise<number> =>
  Number(await testId(page, id).getAttribute(name));

describe('the dashboard last-hour history in a real browser', () => {
  let browser: Browser;
  let stack: Stack;
  let page: Page;
  const pageErrors: string[] = [];
  const sent: Record<string, Sent> = {};

  beforeAll(async () => {
    [browser, stack] = await Promise.all([launchChromium(), startHistoryStack()]);
    scriptVerdicts(stack);
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.setDefaultTimeout(UPDATE_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await mkdir(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await browser?.close();
    await stack?.close();
  });

  it('shows every chart empty, with its axes and a message, before any traffic', async () => {
    await page.goto(`${stack.url}/dashboard/`);
    await testId(page, 'history').waitFor({ state: 'visible' });
    for (const id of ['chart-requests', 'chart-tiers', 'chart-latency', 'chart-deployment-ttft'])
      expect(await testId(page, id).getAttribute('data-empty')).toBe('true');
    expect(await testId(page, 'chart-tiers').textContent()).toContain('No routed requests in the last hour');
    expect(await testId(page, 'chart-requests').textContent()).toContain('now');
    expect(await testId(page, 'chart-requests').textContent()).toContain('req/min');
  });

  it('draws known traffic: tiers, an error, a fallback, rejections, a lifted session turn and a cached decision', async () => {
    sent['fallback'] = await chat(stack, { model: 'tier:SIMPLE', content: 'hello there' });
    sent['complex'] = await chat(stack, { model: 'tier:COMPLEX', content: 'compare two designs' });
    sent['error'] = await chat(stack, { model: 'tier:MODERATE', content: 'summarize this' });
    const session = { 'x-session-id': 'dashboard-history-session' };
    sent['proof'] = await chat(stack, {
      model: 'auto',
      content: 'Prove that there are infinitely many primes.',
      headers: session,
    });
    sent['thanks'] = await chat(stack, { model: 'auto', content: 'ok thanks', headers: session });
    sent['cached'] = await chat(stack, { model: 'auto', content: 'ok thanks' });
    sent['floor'] = await chat(stack, {
      model: 'auto',
      content: 'what is two plus two?',
      headers: { 'x-autotier-min-tier': 'COMPLEX' },
    });
    const wrongType = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    const unknownTier = await chat(stack, { model: 'tier:NOPE', content: 'hi' });

    expect(sent['fallback']?.headers.get('x-autotier-fallbacks')).toBe('1');
    expect(sent['error']?.status).toBeGreaterThanOrEqual(500);
    expect(sent['thanks']?.headers.get('x-autotier-tier')).toBe('EXPERT');
    expect(sent['cached']?.headers.get('x-autotier-classifier')).toBe('cache');
    expect(sent['floor']?.headers.get('x-autotier-tier')).toBe('COMPLEX');
    expect(wrongType.status).toBe(415);
    expect(unknownTier.status).toBe(404);

    // the page's next polls bring all nine requests in
    await expect
      .poll(() => testId(page, 'history').getAttribute('data-total'), { timeout: UPDATE_MS })
      .toBe('9');
  });

  it('has bars, lines and legends in every chart', async () => {
    expect(await chartAttribute(page, 'chart-requests', 'data-bars')).toBeGreaterThanOrEqual(3);
    expect(await chartAttribute(page, 'chart-tiers', 'data-bars')).toBeGreaterThanOrEqual(4);
    expect(await chartAttribute(page, 'chart-rejected', 'data-bars')).toBeGreaterThanOrEqual(1);
    expect(await chartAttribute(page, 'chart-error-rate', 'data-points')).toBeGreaterThanOrEqual(2);
    expect(await chartAttribute(page, 'chart-latency', 'data-points')).toBeGreaterThanOrEqual(4);
    expect(await chartAttribute(page, 'chart-deployment-ttft', 'data-points')).toBeGreaterThanOrEqual(4);
    expect(await page.locator('[data-testid=chart-latency] path.line').count()).toBe(4);
    expect(
      await page
        .locator(
          '[data-testid=chart-deployment-errors] path.line, [data-testid=chart-deployment-errors] circle',
        )
        .count(),
    ).toBeGreaterThanOrEqual(3);

    const legend = (id: string) =>
      page
        .locator(`[data-testid=${id}-legend] [data-testid=legend-item]`)
        .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset['series']));
    expect(await legend('chart-requests')).toEqual(['ok', 'error', 'rejected', 'client went away']);
    expect(await legend('chart-tiers')).toEqual(['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT']);
    expect(await legend('chart-rejected')).toContain('invalid request (4xx)');
    expect(await legend('chart-deployment-ttft')).toEqual(
      expect.arrayContaining(['small p50', 'small p95', 'huge p95', 'large p50']),
    );
    expect(await legend('chart-deployment-errors')).toEqual(
      expect.arrayContaining(['flaky', 'broken', 'small']),
    );

    const small = page.locator('[data-testid=deployment-row][data-deployment=small]');
    expect(await small.getByTestId('hour-ttft').textContent()).toMatch(/\d+ ms \/ \d+ ms/);
    const flaky = page.locator('[data-testid=deployment-row][data-deployment=flaky]');
    expect(await flaky.getByTestId('hour-errors').textContent()).toMatch(/^[12] of [12] \(100%\)$/);
  });

  it('shows the rule that lifted a tier and the stage behind a cached decision', async () => {
    const row = (name: string) =>
      page.locator(`[data-testid=decision-row][data-request-id="${sent[name]?.requestId}"]`);
    const thanks = row('thanks');
    expect(await thanks.getByTestId('tier').textContent()).toBe('EXPERT');
    const lift = thanks.locator('[data-testid=rule][data-lift=true]');
    expect(await lift.getAttribute('data-rule')).toBe('session');
    expect(await lift.textContent()).toBe('↑ session SIMPLE → EXPERT');
    expect(await thanks.getByTestId('cause').textContent()).toBe('llm');

    expect(await row('cached').getByTestId('cause').textContent()).toBe('cache (llm)');
    expect(await row('cached').locator('[data-testid=rule][data-lift=true]').count()).toBe(0);

    const floor = row('floor').locator('[data-testid=rule][data-lift=true]');
    expect(await floor.getAttribute('data-rule')).toBe('min_tier');
    expect(await floor.textContent()).toBe('↑ min_tier SIMPLE → COMPLEX');
    const override = row('complex').getByTestId('rule');
    expect(await override.getAttribute('data-lift')).toBe('false');
    expect(pageErrors).toEqual([]);
  });

  it('serves the history in the summary JSON, bounded to 60 one-minute buckets', async () => {
    const response = await fetch(`${stack.url}/dashboard/api/summary`);
    const text = await response.text();
    const { history } = JSON.parse(text) as { history: HistorySnapshot };
    expect(history).toMatchObject({ scope: 'process', bucketMs: 60_000, buckets: 60 });
    expect(history.requests.ok).toHaveLength(60);
    expect(history.totals).toMatchObject({ errors: 1, rejected: 2 });
    expect(history.totals.requests).toBe(9);
    expect(Object.keys(history.tiers).sort()).toEqual(['COMPLEX', 'EXPERT', 'MODERATE', 'SIMPLE']);
    expect(text.length).toBeLessThan(64 * 1024);
  });

  it('screenshots the charts, and the chart area is not blank', async () => {
    // stop the 2 s polls, which redraw the charts, while the screenshots are taken
    await testId(page, 'live').uncheck();
    const history = testId(page, 'history');
    const shot = await history.screenshot();
    await writeFile(`${ARTIFACTS}dashboard-history.png`, shot);
    await page.screenshot({ path: `${ARTIFACTS}dashboard-history-full.png`, fullPage: true });
    expect(shot.length).toBeGreaterThan(20_000);
    const tiers = await page.locator('[data-testid=chart-tiers]').screenshot();
    const { inked, total } = await inkedPixels(browser, tiers);
    // bars, axes and labels: far more than a blank box, far less than a filled one
    expect(inked / total).toBeGreaterThan(0.01);
    expect(inked / total).toBeLessThan(0.9);
    const empty = await page.locator('[data-testid=chart-rejected]').screenshot();
    expect((await inkedPixels(browser, empty)).inked).toBeGreaterThan(50);
  });
});
