import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { HAS_CHROMIUM, launchChromium, warnWithoutChromium } from '../support/browser.ts';

warnWithoutChromium('GraphiQL and API reference browser test');

// GraphiQL and the API reference as a newcomer uses them, in a real headless Chromium: one query
// from GraphiQL, one REST call from the reference page's "Try it out".
describe.skipIf(!HAS_CHROMIUM)('GraphiQL and the API reference in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let freeKey: string;
  let proKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    freeKey = (await t.createKey((await t.createOrg('free')).id)).key;
    proKey = (await t.createKey((await t.createOrg('pro')).id)).key;
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  /** A page that records Content-Security-Policy refusals, script errors and any request leaving this server. */
  async function openPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!/^(data|blob):/.test(request.url()) && !request.url().startsWith(`${base}/`)) problems.push(`request to ${request.url()}`);
    });
    return { page, problems };
  }

  for (const width of [1280, 390]) {
    it(`opens the landing page at ${width} px: every way in, how to get a key, no sideways scroll`, async () => {
      const { page, problems } = await openPage();
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${base}/`);
      const links = await page.locator('li a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(links).toEqual([
        ['API reference', `${base}/v1/docs`],
        ['OpenAPI document', `${base}/v1/openapi.json`],
        ['GraphQL', `${base}/v1/graphql`],
        ['Health', `${base}/healthz`],
        ['Organisation console', `${base}/console`],
      ]);
      expect(await page.locator('body').textContent()).toContain('npx lcf quickstart');
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= innerWidth)).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('opens GraphiQL without sending GraphQL anything, its documentation there, and explains a run without a key', async () => {
    const { page, problems } = await openPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/graphql' && request.method() === 'POST') sent.push(request.postData() ?? '');
    });
    await page.goto(`${base}/v1/graphql`);
    await expect(page.locator('.graphiql-tab-active').textContent()).resolves.toContain('FactorLookup');
    // The documentation explorer lists the schema's root fields from the page's own copy of the schema.
    await page.click('button[aria-label="Show Documentation Explorer"]');
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().waitFor();
    await page.locator('.graphiql-doc-explorer a', { hasText: 'Query' }).first().click();
    await page.locator('.graphiql-doc-explorer').getByText('factorByRegion').first().waitFor();
    await expect(page.locator('.graphiql-doc-explorer').textContent()).resolves.not.toContain('Error fetching schema');
    // Run with the placeholder still in the header editor: answered in the page, in words.
    await page.click('.graphiql-execute-button');
    // The result editor wraps long lines: compared with its white space taken out.
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.replace(/\s+/g, '').includes('NoAPIkeyyet'));
    expect((await page.locator('.result-window').textContent())?.replace(/\s+/g, '')).toContain('`npxlcfquickstart`');
    expect(sent).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lays GraphiQL out for a 390 px phone: the result under the editor, full width, no sideways scroll', async () => {
    const { page, problems } = await openPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/v1/graphql`);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.replace(/\s+/g, '').includes('NoAPIkeyyet'));
    const [editor, response] = await Promise.all(
      ['.graphiql-editors', '.graphiql-response'].map((s) => page.locator(s).evaluate((e) => e.getBoundingClientRect().toJSON())),
    );
    expect(response!.width).toBeGreaterThan(250);
    expect(response!.top).toBeGreaterThanOrEqual(editor!.bottom - 1);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= innerWidth)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs an approved template from GraphiQL with the key typed into the header editor', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/v1/graphql`);
    // The first tab is the factor lookup template, its variables filled in.
    await expect(page.locator('.graphiql-tab-active').textContent()).resolves.toContain('FactorLookup');

    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    await headers.click();
    // Replaces the placeholder in `"Authorization": "Bearer <your API key>"` (line 2) with the key.
    for (const key of ['ControlOrMeta+Home', 'ArrowDown', 'End', 'ArrowLeft']) await page.keyboard.press(key);
    for (let i = 0; i < '<your API key>'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.insertText(freeKey);

    const answer = page.waitForResponse(
      (r) => r.url() === `${base}/v1/graphql` && r.request().postData()?.includes('FactorLookup') === true,
    );
    await page.click('.graphiql-execute-button');
    const response = await answer;
    expect(response.status()).toBe(200);
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.factorByRegion).toMatchObject({ unit: 'kg CO2e/kWh' });
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.includes('factorByRegion'));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('calls GET /reference/categories from the API reference with "Try it out"', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/v1/docs`);
    const operation = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/v1/reference/categories"]') });
    const keyed = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/v1/assets"]') });
    // A padlock says a route needs a key: closed on keyed routes, none where a key is optional.
    await keyed.locator('.opblock-summary .authorization__btn svg.locked').waitFor();
    expect(await operation.locator('.opblock-summary .authorization__btn').count()).toBe(0);
    await operation.locator('.opblock-summary').click();
    // What "Try it out" spends without a key, said with the route.
    expect((await operation.locator('.opblock-body').first().textContent())?.replace(/\s+/g, ' ')).toContain(
      'Without a key, calls count against the anonymous quota of the calling IP address',
    );
    // A key given in Authorize is still sent to a route it is optional for: the answer is counted for its plan.
    await page.click('.auth-wrapper button.authorize');
    await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(proKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    await operation.locator('button.try-out__btn').click();
    const answer = page.waitForResponse(`${base}/v1/reference/categories`);
    await operation.locator('button.execute').click();
    expect((await answer).status()).toBe(200);
    expect((await answer).headers()['x-ratelimit-plan']).toBe('pro');
    const shown = operation.locator('.live-responses-table tbody .response');
    await shown.waitFor();
    expect((await shown.locator('.response-col_status').textContent())?.trim()).toBe('200');
    expect(await shown.locator('.response-col_description').textContent()).toContain('"category": "laptop"');
    expect(problems).toEqual([]);
    await page.close();
  });
});
