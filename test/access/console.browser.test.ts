import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { HAS_CHROMIUM, launchChromium, warnWithoutChromium } from '../support/browser.ts';

warnWithoutChromium('console browser test');

// The API-key page as a person uses it, in a real headless Chromium.
describe.skipIf(!HAS_CHROMIUM)('API-key console in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let signInKey: string;

  beforeAll(async () => {
    t = await createTestApp({ QUOTA_LIMITS: 'minute.pro=1000' });
    const org = await t.createOrg('pro', 'Console Org');
    signInKey = (await t.createKey(org.id)).key;
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const callApi = (key: string) => fetch(`${base}/v1/reference/categories`, { headers: { authorization: `Bearer ${key}` } });

  it('signs in with a key, lists keys with usage, creates a key shown once, and revokes it', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${base}/console`);
    // The style sheet is admitted by the Content-Security-Policy (its hash), nothing is blocked.
    expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe('960px');
    await page.fill('input[name=key]', 'svc_live_wrongwrongwrongwrongwrongwrong12');
    await page.click('button[type=submit]');
    await expect(page.locator('.error').textContent()).resolves.toMatch(/not a live API key/);

    for (let i = 0; i < 3; i++) expect((await callApi(signInKey)).status).toBe(200);
    await page.fill('input[name=key]', signInKey);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Console Org")');
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr td.usage').first().textContent()).toMatch(/3 \/ 1000/);

    await page.fill('input[name=name]', 'ci pipeline');
    await page.click('text=Create key');
    const created = (await page.locator('#new-key').textContent())!.trim();
    expect(created).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    expect((await callApi(created)).status).toBe(200);
    expect(await page.locator('tbody tr').count()).toBe(2);

    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/lcf-console.png`, fullPage: true });

    const row = page.locator('tbody tr', { hasText: 'ci pipeline' });
    await row.locator('button:has-text("Revoke")').click();
    await page.waitForSelector('tbody tr.revoked');
    expect(await page.locator('tbody tr.revoked').textContent()).toMatch(/ci pipeline/);
    expect((await callApi(created)).status).toBe(401);
    // The new key was shown once: the page does not show it again.
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(created);

    await page.click('text=Sign out');
    await page.waitForSelector('input[name=key]');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('refuses forms from another origin', async () => {
    const res = await fetch(`${base}/console/keys`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'environment=live',
    });
    expect(res.status).toBe(403);
  });

  it('refuses a form another site submits in the browser', async () => {
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form method="post" action="${base}/console/login"><input name="key" value="${signInKey}"></form><script>document.forms[0].submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const page = await browser.newPage();
      const answer = page.waitForResponse(`${base}/console/login`);
      // Another site: the console is at 127.0.0.1, this page at localhost.
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      const response = await answer;
      expect(response.status()).toBe(403);
      expect(response.headers()['set-cookie']).toBeUndefined();
      await page.close();
    } finally {
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
  });
});
