import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { HAS_CHROMIUM, launchChromium, warnWithoutChromium } from '../support/browser.ts';
import { alterStoredTotal, bearer, revoke, storedCalculation } from './support.ts';

warnWithoutChromium('verification browser test');

// verify_url as an auditor opens it from a QR code: a real headless Chromium on a real server.
describe.skipIf(!HAS_CHROMIUM)('certificate verification page in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.createKey((await t.createOrg('pro', 'Müller GmbH')).id)).key;
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  /** Issued over HTTP, so verify_url carries this server's origin. */
  async function issueOverHttp(): Promise<{ id: string; verify_url: string; certificate_number: string }> {
    const res = await fetch(`${base}/v1/certificate`, {
      method: 'POST',
      headers: bearer(key),
      body: JSON.stringify({ calculation_id: await storedCalculation(t, key) }),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  async function readVerdict(url: string, screenshot: string) {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(url);
    const verdict = page.locator('#verdict');
    const result = {
      status: response?.status(),
      verdict: await verdict.getAttribute('data-verdict'),
      heading: (await verdict.locator('strong').textContent())?.trim(),
      text: await verdict.textContent(),
      total: await page.locator('#total td').textContent(),
      // The style sheet is admitted by the Content-Security-Policy (its hash): the verdict box has its border.
      border: await verdict.evaluate((el) => getComputedStyle(el).borderTopWidth),
    };
    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/lcf-verify-${screenshot}.png`, fullPage: true });
    await page.close();
    expect(violations).toEqual([]);
    return result;
  }

  it('reads valid, altered and revoked verdicts from verify_url', async () => {
    const valid = await issueOverHttp();
    expect(valid.verify_url).toBe(`${base}/verify/${valid.certificate_number}`);
    const altered = await issueOverHttp();
    await alterStoredTotal(t, altered.id);
    const revoked = await issueOverHttp();
    expect((await revoke(t, key, revoked.id)).status).toBe(200);

    const v = await readVerdict(valid.verify_url, 'valid');
    expect(v).toMatchObject({ status: 200, verdict: 'valid', heading: 'Valid', border: '2px' });
    expect(v.total).toMatch(/kg CO₂e$/);
    const a = await readVerdict(altered.verify_url, 'altered');
    expect(a).toMatchObject({ status: 200, verdict: 'altered', heading: 'Altered' });
    expect(a.text).toMatch(/no longer match their signature/);
    const r = await readVerdict(revoked.verify_url, 'revoked');
    expect(r).toMatchObject({ status: 200, verdict: 'revoked', heading: 'Revoked' });
    expect(r.text).toMatch(/revoked this certificate on/);
  });
});
