import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { HAS_CHROMIUM, launchChromium, warnWithoutChromium } from '../support/browser.ts';
import { apiOverview, kgText, seedOrg, type SeededOrg } from './support.ts';

warnWithoutChromium('dashboard browser test');

const SHOTS = process.env.TMPDIR ?? '/tmp';

// The organisation dashboard as a person sees it, in a real headless Chromium, at desktop and phone widths.
describe.skipIf(!HAS_CHROMIUM)('console dashboard in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let a: SeededOrg;
  let b: SeededOrg;

  beforeAll(async () => {
    t = await createTestApp();
    a = await seedOrg(t, 'Alpha', 'Latitude 7440', 'DE');
    b = await seedOrg(t, 'Bravo', 'Precision 3581', 'PL');
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function openDashboard(width: number, height: number): Promise<{ page: Page; violations: string[] }> {
    const page = await browser.newPage({ viewport: { width, height } });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${base}/console`);
    await page.fill('input[name=key]', a.key);
    await page.click('button[type=submit]');
    await page.click('a:has-text("Dashboard")');
    await page.waitForSelector('h1:has-text("Dashboard of Alpha")');
    return { page, violations };
  }

  const horizontalOverflow = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

  it("shows the API's totals and charts with their tables at 1280 px, nothing of another organisation", async () => {
    const { page, violations } = await openDashboard(1280, 900);
    const api = await apiOverview(t, a.key);
    expect(await page.locator('#total-kg').textContent()).toBe(kgText(api.total_kg_co2e));
    expect(await page.locator('#asset-count').textContent()).toBe(String(api.asset_count));
    // Every asset is in this year's inventory, so the period's total is the same figure, with its interval around it.
    expect(await page.locator('#inventory-kg').textContent()).toBe(kgText(api.total_kg_co2e));
    const [low, high] = (await page.locator('#uncertainty').textContent())!
      .match(/([\d,.]+) to ([\d,.]+)/)!
      .slice(1)
      .map((n) => Number(n.replaceAll(',', '')));
    expect(low).toBeLessThan(api.total_kg_co2e);
    expect(high).toBeGreaterThan(api.total_kg_co2e);

    // Charts are drawn (the style sheet admitted by the CSP colours the bars) and each has a table with a caption.
    expect(await page.locator('svg.chart rect.bar').count()).toBeGreaterThanOrEqual(12);
    expect(
      await page
        .locator('svg.chart rect.bar')
        .first()
        .evaluate((el) => getComputedStyle(el).fill),
    ).toBe('rgb(47, 125, 79)');
    expect(await page.locator('#trend tbody tr').count()).toBe(await page.locator('svg.chart rect.bar').count());
    expect(await page.locator('#top-models tbody').textContent()).toContain('Latitude 7440');
    expect(await page.locator('#top-countries tbody').textContent()).toContain('Germany');
    expect(await page.locator('#confidence tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#quota tbody').textContent()).toMatch(/\d+ \/ \d+/);
    expect(await page.locator('#erasure').textContent()).toContain('Alpha portal down');
    expect(await page.locator('#webhooks').textContent()).toContain('HTTP 500');
    expect(await page.locator('#exports').textContent()).toContain('Alpha export disk full');
    const text = (await page.locator('body').textContent())!;
    for (const foreign of ['Precision 3581', 'Poland', 'Bravo', b.certificate.certificate_number]) expect(text).not.toContain(foreign);

    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/lcf-dashboard-1280.png`, fullPage: true });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('fits a 390 px phone without horizontal scroll and is usable by keyboard: revoke by Tab and Enter', async () => {
    const { page, violations } = await openDashboard(390, 844);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    // Nor does any table need scrolling sideways within the page.
    await page.click('summary');
    const scrolling = await page.$$eval('.wide', (tables) => tables.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.id));
    expect(scrolling).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/lcf-dashboard-390.png`, fullPage: true });

    // Tab to the revoke button; the focused element is outlined.
    const revoke = page.locator(`button[aria-label="Revoke ${a.certificate.certificate_number}"]`);
    for (let i = 0; i < 60 && !(await revoke.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await revoke.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`text=Certificate ${a.certificate.certificate_number} is revoked.`);
    expect(await page.locator('#certificates').textContent()).toMatch(/revoked \d{4}-\d{2}-\d{2}/);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(violations).toEqual([]);
    await page.close();
  });
});
