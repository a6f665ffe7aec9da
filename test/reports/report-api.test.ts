import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, UNLIMITED, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { seedDemo } from '../../src/assets/seed-demo.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';
import { assembleReportView } from '../../src/reports/view.ts';
import * as fmt from '../../src/documents/format.ts';
import { uncertaintyInterval } from '../../src/footprint/engine/interval.ts';
import { getCategory } from '../../src/footprint/engine/index.ts';

/** POST /v1/report over HTTP (in process): access rules, validation, the PDF, its records and the monthly limit. */
let t: TestApp;
let workDir: string;
const keys: Record<string, string> = {};
const keyIds: Record<string, string> = {};
const orgs: Record<string, string> = {};
const REPORT_LIMIT = 3;

const post = (key: string | undefined, body: unknown) =>
  t.request('/v1/report', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The PDF's text in its layout, and in reading order without layout (a wrapped table cell's words in sequence). */
async function pdfTexts(response: Response): Promise<[string, string]> {
  const file = path.join(workDir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  const text = async (args: string[]) => (await promisify(execFile)('pdftotext', [...args, file, '-'])).stdout;
  return [await text(['-layout']), await text([])];
}

const pdfText = async (response: Response) => (await pdfTexts(response))[0];

/** The text with every run of white space as one space: table rows read as "Production 131,403 71.3 % …". */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'lcf-report-api-'));
  t = await createTestApp({ QUOTA_LIMITS: `${UNLIMITED},report.pro=${REPORT_LIMIT},report.business=1000` });
  const org = async (name: string, plan: string, label: string, options: Parameters<TestApp['createKey']>[1] = {}) => {
    orgs[label] ??= (await t.createOrg(plan, name)).id;
    const created = await t.createKey(orgs[label]!, options);
    keys[label] = created.key;
    keyIds[label] = created.id;
  };
  await org('Free Ltd', 'free', 'free');
  await org('Müller Reporting GmbH', 'pro', 'pro');
  keys.proTest = (await t.createKey(orgs.pro!, { environment: 'test' })).key;
  keys.proNoContext = (await t.createKey(orgs.pro!, { org_context: false })).key;
  keys.proTestNoContext = (await t.createKey(orgs.pro!, { environment: 'test', org_context: false })).key;
  await org('Empty Ltd', 'pro', 'empty');
  await org('Busy Ltd', 'pro', 'busy');
  await org('Big Corp', 'enterprise', 'enterprise');
  await org('Careful Ltd', 'pro', 'refused');
  await org('Audited Estates plc', 'business', 'audited');
  await seedDemo(t.app.services.db.prisma, orgs.pro!, 60, undefined, { seed: 5, services: t.app.services });
  await seedDemo(t.app.services.db.prisma, orgs.audited!, 80, undefined, { seed: 11, services: t.app.services });
}, 180_000);
afterAll(async () => {
  await t?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe(`POST /v1/report on ${TEST_DATABASE_KIND}`, () => {
  it('needs a key (401), the pro plan (free: 403 PLAN_TOO_LOW) and organisation context (403)', async () => {
    const body = { type: 'sustainability_summary' };
    const anonymous = await post(undefined, body);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'MISSING_API_KEY' });
    const free = await post(keys.free, body);
    expect(free.status).toBe(403);
    expect(await free.json()).toMatchObject({ error: 'Forbidden', code: 'PLAN_TOO_LOW' });
    for (const key of [keys.proNoContext, keys.proTestNoContext]) {
      const res = await post(key, body);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'NO_ORGANIZATION_CONTEXT' });
    }
    expect(await t.app.services.db.prisma.report.count()).toBe(0);
  });

  it.each([
    [{}, 'type', 'type: is required (sustainability_summary or hotspot_analysis)'],
    [{ type: 'carbon' }, 'type', 'type: must be sustainability_summary or hotspot_analysis'],
    [{ type: 'hotspot_analysis', dateFrom: '2025-02-30' }, 'dateFrom', "dateFrom: '2025-02-30' is not a calendar date"],
    [{ type: 'hotspot_analysis', dateTo: '2025/01/31' }, 'dateTo', "dateTo: must be a date written YYYY-MM-DD, got '2025/01/31'"],
    [{ type: 'hotspot_analysis', dateTo: '31-01-2025' }, 'dateTo', "dateTo: must be a date written YYYY-MM-DD, got '31-01-2025'"],
    [
      { type: 'hotspot_analysis', dateFrom: '2025-06-01', dateTo: '2025-05-31' },
      'dateFrom',
      "dateFrom: must be on or before dateTo (2025-05-31), got '2025-06-01'",
    ],
    [
      { type: 'hotspot_analysis', dateFrom: '1989-12-31', dateTo: '1990-06-30' },
      'dateFrom',
      "dateFrom: must be from 1990-01-01 to 2100-12-31, got '1989-12-31'",
    ],
    [
      { type: 'hotspot_analysis', dateFrom: '2025-01-01', dateTo: '2101-01-01' },
      'dateTo',
      "dateTo: must be from 1990-01-01 to 2100-12-31, got '2101-01-01'",
    ],
    [{ type: 'hotspot_analysis', dateTo: '' }, 'dateTo', 'dateTo: must not be empty'],
    [{ type: 'hotspot_analysis', dateFrom: '' }, 'dateFrom', 'dateFrom: must not be empty'],
    [{ type: 'hotspot_analysis', dateFrom: '2025-13-01' }, 'dateFrom', "dateFrom: '2025-13-01' is not a calendar date"],
    [{ type: 'hotspot_analysis', dateFrom: ' 2025-01-1' }, 'dateFrom', "dateFrom: must be a date written YYYY-MM-DD, got ' 2025-01-1'"],
    [
      { type: 'hotspot_analysis', dateFrom: '2100-01-01', dateTo: '2100-12-31' },
      'dateFrom',
      'dateFrom: the period 2100-01-01 to 2100-12-31 lies wholly in the future',
    ],
    [{ type: 'hotspot_analysis', dateFrom: 20250101 }, 'dateFrom', 'dateFrom: '],
    [{ type: 'hotspot_analysis', dateTo: '2025-01-01'.repeat(1_000) }, 'dateTo', 'dateTo: must be at most 10 characters, got 10000'],
    [{ type: 'hotspot_analysis', dateTo: '2025-01-0\u0000' }, 'dateTo', 'dateTo: must not contain control characters'],
    [{ type: 'x'.repeat(100_000) }, 'type', 'type: must be'],
    [{ type: 'hotspot_analysis', criterion: 'co2' }, 'criterion', 'criterion: must be gwp, adpe, pe or left out (gwp)'],
    [{ type: 'hotspot_analysis', criterion: 'ADPE' }, 'criterion', 'criterion: must be gwp, adpe, pe or left out (gwp)'],
  ])('answers 400 naming the field for %j', async (body, field, details) => {
    const res = await post(keys.pro, body);
    expect(res.status).toBe(400);
    const error = await res.json();
    expect(error).toMatchObject({ code: 'INVALID_PARAMETER', error: `Invalid parameter '${field}'` });
    expect(error.details).toContain(details);
  });

  it('answers 400 for a body that is not a JSON object', async () => {
    for (const body of ['{', '[]', '"sustainability_summary"']) {
      const res = await post(keys.pro, body);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('INVALID_JSON');
    }
  });

  it('the summary shows GWP, ADPe and PE side by side: sums of the stored impacts of the active calculations, as the API answered them', async () => {
    const period = { dateFrom: '1990-01-01', dateTo: today() };
    const db = t.app.services.db.prisma;
    const assets = await db.asset.findMany({
      where: { org_id: orgs.audited! },
      select: { active_calculation: { select: { id: true, result: true } } },
    });
    const calculations = assets.map((a) => a.active_calculation).filter((c) => c !== null);
    expect(calculations.length).toBeGreaterThan(0);
    // Each asset's figures as the API answered them (the calculation's stored result), summed by hand.
    const byHand = (criterion: 'adpe' | 'pe') => {
      const sum = { production: 0, transport: 0, use: 0, end_of_life: 0 };
      for (const c of calculations)
        for (const phase of Object.keys(sum) as (keyof typeof sum)[]) sum[phase] += (c.result as any).impacts[criterion].phases[phase];
      return { ...sum, total: sum.production + sum.transport + sum.use + sum.end_of_life };
    };
    const text = flat(await pdfText(await post(keys.audited, { type: 'sustainability_summary', ...period })));
    expect(text).toContain('Climate, metals and energy');
    expect(text).toContain('ADPe: abiotic depletion of elements');
    for (const criterion of ['adpe', 'pe'] as const) {
      const expected = byHand(criterion);
      for (const value of Object.values(expected)) expect(text, `${criterion} ${value}`).toContain(fmt.significant(value));
    }
    const adpe = byHand('adpe');
    // the row of a phase: GWP, ADPe and PE side by side
    expect(text).toMatch(
      new RegExp(
        `Production [\\d,.]+ ${fmt.significant(adpe.production).replace(/[.]/g, '\\.')} ${fmt.significant(byHand('pe').production).replace(/[.]/g, '\\.')}`,
      ),
    );
    expect(text).not.toContain('Assets calculated before ADPe and PE were');

    // A calculation stored before impacts existed: counted apart, its figures in no column.
    const [first] = calculations;
    const { impacts, ...older } = first!.result as any;
    await db.calculation.update({ where: { id: first!.id }, data: { result: older } });
    try {
      const view = await assembleReportView(
        { prisma: t.app.services.scopes.for(orgs.audited!), orgId: orgs.audited!, reference: t.app.services.reference, sandbox: false },
        { type: 'sustainability_summary', ...period },
      );
      expect(view.criteria!.assets_without_impacts).toBe(1);
      // 4 significant digits, as the API rounds ADPe
      expect(fmt.significant(view.criteria!.adpe.total)).toBe(fmt.significant(adpe.total - impacts.adpe.total));
      const again = flat(await pdfText(await post(keys.audited, { type: 'sustainability_summary', ...period })));
      expect(again).toContain('Assets calculated before ADPe and PE were, not in those columns: 1.');
    } finally {
      await db.calculation.update({ where: { id: first!.id }, data: { result: first!.result as object } });
    }
  });

  it('ranks the hotspots by ADPe or PE on request: the figures printed are the sums of the stored impacts, ranked by them', async () => {
    const period = { dateFrom: '1990-01-01', dateTo: today() };
    const assets = await t.app.services.db.prisma.asset.findMany({
      where: { org_id: orgs.audited!, active_calculation_id: { not: null } },
      select: { category: true, active_calculation: { select: { result: true } } },
    });
    for (const criterion of ['adpe', 'pe'] as const) {
      // Each category's figure as the API answered it (the calculations' stored impacts), summed by hand.
      const byCategory = new Map<string, { assets: number; value: number }>();
      for (const a of assets) {
        const name = getCategory(a.category)!.name;
        const row = byCategory.get(name) ?? { assets: 0, value: 0 };
        row.assets += 1;
        row.value += (a.active_calculation!.result as any).impacts[criterion].total;
        byCategory.set(name, row);
      }
      const ranked = [...byCategory].sort(([, a], [, b]) => b.value - a.value).slice(0, 10);
      expect(ranked.length).toBeGreaterThan(1);
      const text = flat(await pdfText(await post(keys.audited, { type: 'hotspot_analysis', criterion, ...period })));
      const { name, unit } = criterion === 'adpe' ? { name: 'ADPe', unit: 'kg Sb eq' } : { name: 'PE', unit: 'MJ' };
      expect(text).toContain(`Ranked by ${name} (${criterion === 'adpe' ? 'abiotic depletion of elements' : 'primary energy'}, ${unit})`);
      expect(text).toContain(`Hotspots by category, ${name}`);
      expect(text).toContain(`Saving, ${unit}`);
      // The table's rows: rank, category, assets, the criterion's sum, in the order of the sums.
      let at = 0;
      ranked.forEach(([label, row], i) => {
        const printed = `${i + 1} ${label} ${fmt.count(row.assets)} ${fmt.significant(row.value)} `;
        const found = text.indexOf(printed, at);
        expect(found, `${criterion}: ${printed}`).toBeGreaterThan(-1);
        at = found;
      });
    }
    // Without a criterion: GWP, as before.
    const gwp = flat(await pdfText(await post(keys.audited, { type: 'hotspot_analysis', ...period })));
    expect(gwp).toContain('Ranked by GWP (global warming, kg CO₂e)');
    expect(gwp).toContain('Hotspots by category: ');
  });

  it('answers a sustainability summary as a PDF naming the organisation and its totals, recorded and audit-logged', async () => {
    const period = { dateFrom: '2025-01-01', dateTo: today() };
    const res = await post(keys.pro, { type: 'sustainability_summary', ...period });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="sustainability-summary_${period.dateFrom}_${period.dateTo}.pdf"`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-report-limit')).toBe(String(REPORT_LIMIT));
    const bytes = Buffer.from(await res.clone().arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const expected = await assembleReportView(
      { prisma: t.app.services.scopes.for(orgs.pro!), orgId: orgs.pro!, reference: t.app.services.reference, sandbox: false },
      { type: 'sustainability_summary', ...period },
    );
    const text = await pdfText(res);
    expect(text).toContain('Müller Reporting GmbH');
    expect(text).toContain(fmt.kg(expected.totals.total_kg_co2e));
    expect(text).toContain(fmt.kg(expected.totals.production_kg));
    expect(text).toContain(expected.by_category[0]!.label);

    const id = res.headers.get('x-report-id')!;
    const report = await t.app.services.db.prisma.report.findUniqueOrThrow({ where: { id } });
    expect(report).toMatchObject({
      org_id: orgs.pro,
      type: 'sustainability_summary',
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(report.date_from?.toISOString().slice(0, 10)).toBe(period.dateFrom);
    expect(report.date_to?.toISOString().slice(0, 10)).toBe(period.dateTo);
    expect(report.pages).toBeGreaterThanOrEqual(1);
    const audit = await t.app.services.db.prisma.auditLog.findFirstOrThrow({
      where: { org_id: orgs.pro, event: 'report.created', subject_id: id },
    });
    expect(audit).toMatchObject({
      subject_type: 'report',
      data: { type: 'sustainability_summary', date_from: period.dateFrom, date_to: period.dateTo, asset_count: expected.asset_count },
    });
    expect(audit.actor_key_id).toBeTruthy();
  });

  it('makes a hotspot analysis with default dates: the year up to today', async () => {
    const res = await post(keys.enterprise, { type: 'hotspot_analysis' });
    expect(res.status).toBe(200);
    const report = await t.app.services.db.prisma.report.findUniqueOrThrow({ where: { id: res.headers.get('x-report-id')! } });
    const to = today();
    const from = `${Number(to.slice(0, 4)) - 1}${to.slice(4)}`.replace(/-02-29$/, '-02-28');
    expect(report.date_to?.toISOString().slice(0, 10)).toBe(to);
    expect(report.date_from?.toISOString().slice(0, 10)).toBe(from);
    expect(await pdfText(res)).toMatch(/HOTSPOT ANALYSIS/i);
  });

  it('gives an organisation without assets a valid report that says so', async () => {
    const res = await post(keys.empty, { type: 'hotspot_analysis', dateFrom: '2025-01-01', dateTo: '2025-12-31' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const text = (await pdfText(res)).replace(/\s+/g, ' ');
    expect(text).toContain('Empty Ltd');
    expect(text).toContain('has no assets yet');
  });

  it('reports on the sandbox for a test key, and says so on the page', async () => {
    const res = await post(keys.proTest, { type: 'sustainability_summary' });
    expect(res.status).toBe(200);
    const text = await pdfText(res);
    expect(text).toContain('Sandbox of Müller Reporting GmbH');
    expect(text).toMatch(/sandbox data/i);
    const report = await t.app.services.db.prisma.report.findUniqueOrThrow({ where: { id: res.headers.get('x-report-id')! } });
    expect(report.org_id).toBe(sandboxOrgId(orgs.pro!));
  });

  it(`admits exactly ${REPORT_LIMIT} of 10 concurrent reports under a monthly limit of ${REPORT_LIMIT}, the rest 429 costing no request`, async () => {
    const requestsToday = async () =>
      (await t.app.services.quota.usageToday([{ keyId: keyIds.busy!, orgId: orgs.busy!, plan: 'pro' }]))[0]!.used;
    const before = await requestsToday();
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(keys.busy, { type: 'sustainability_summary' })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(REPORT_LIMIT).fill(200), ...Array(10 - REPORT_LIMIT).fill(429)]);
    const refused = responses.find((r) => r.status === 429)!;
    const body = await refused.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'message', 'retry_after_seconds']);
    expect(body.code).toBe('REPORT_LIMIT_REACHED');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    expect(body.message).toMatch(/monthly limit of 3 reports of the pro plan is used up/);
    expect(Number(refused.headers.get('retry-after'))).toBe(body.retry_after_seconds);
    expect(Math.abs(body.retry_after_seconds - (nextMonth - now.getTime() / 1000))).toBeLessThan(60);
    // The month's window in its own headers; X-RateLimit-* stay the request quota's (its day).
    expect(refused.headers.get('x-report-limit')).toBe(String(REPORT_LIMIT));
    expect(refused.headers.get('x-report-remaining')).toBe('0');
    expect(refused.headers.get('x-report-reset')).toBe(String(nextMonth));
    expect(refused.headers.get('x-ratelimit-limit')).toBe('1000000');
    expect(Number(refused.headers.get('x-ratelimit-reset')) % 86_400).toBe(0);
    expect(await t.app.services.db.prisma.report.count({ where: { org_id: orgs.busy } })).toBe(REPORT_LIMIT);
    // Only the delivered reports cost a request of the day; the 429s were given back.
    expect(await requestsToday()).toBe(before + REPORT_LIMIT);
    const next = await post(keys.busy, { type: 'sustainability_summary' });
    expect(next.status).toBe(429);
    expect(await requestsToday()).toBe(before + REPORT_LIMIT);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => r.headers.get('x-report-remaining'))
      .sort();
    expect(remaining).toEqual(['0', '1', '2']);
  });

  it('gives a reserved report back when it fails, never going below zero', async () => {
    const quota = t.app.services.quota;
    const org = orgs.enterprise!;
    const first = await quota.reserveReport(org, 'pro');
    const before = first.remaining;
    await first.release();
    await first.release(); // once only
    const again = await quota.reserveReport(org, 'pro');
    expect(again.remaining).toBe(before);
    await again.release();
    // A refused reservation has nothing to give back.
    const busy = await quota.reserveReport(orgs.busy!, 'pro');
    expect(busy).toMatchObject({ allowed: false, remaining: 0, limit: REPORT_LIMIT });
    await busy.release();
    expect((await quota.reserveReport(orgs.busy!, 'pro')).allowed).toBe(false);
    // A new month is a new allowance.
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
    expect(await quota.reserveReport(orgs.busy!, 'pro', nextMonth)).toMatchObject({ allowed: true, remaining: REPORT_LIMIT - 1 });
  });

  it('is documented in the OpenAPI document', async () => {
    const { body } = await t.json('/v1/openapi.json');
    const operation = body.paths['/v1/report'].post;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    expect(operation.requestBody.content['application/json'].schema.properties.type.enum).toEqual([
      'sustainability_summary',
      'hotspot_analysis',
    ]);
    expect(operation.responses['200'].content).toHaveProperty('application/pdf');
    const criterion = operation.requestBody.content['application/json'].schema.properties.criterion;
    expect(criterion.enum.filter((value: unknown) => value !== null)).toEqual(['gwp', 'adpe', 'pe']);
    expect(criterion.description).toMatch(/^What the hotspot analysis ranks by: gwp \(kg CO2e, the default\)/);
  });
});

describe(`report periods and what a refusal costs on ${TEST_DATABASE_KIND}`, () => {
  /** The organisation's reports left this month and requests counted today, without using either. */
  async function usage(label: string) {
    const reservation = await t.app.services.quota.reserveReport(orgs[label]!, 'pro');
    await reservation.release();
    const [today] = await t.app.services.quota.usageToday([{ keyId: keyIds[label]!, orgId: orgs[label]!, plan: 'pro' }]);
    return { reportsLeft: reservation.remaining + 1, requestsToday: today!.used };
  }

  it('refuses future, empty, malformed and out-of-range periods with a 400 naming the field, fast, and charges nothing', async () => {
    const before = await usage('refused');
    const refusals: [unknown, string][] = [
      [{ type: 'sustainability_summary', dateFrom: '2099-01-01', dateTo: '2099-12-31' }, 'dateFrom'],
      [{ type: 'sustainability_summary', dateTo: '' }, 'dateTo'],
      [{ type: 'sustainability_summary', dateFrom: '2025-1-1' }, 'dateFrom'],
      [{ type: 'sustainability_summary', dateFrom: '1985-01-01' }, 'dateFrom'],
      [{ type: 'hotspot_analysis', dateFrom: '2020-01-01', dateTo: '9999-12-31' }, 'dateTo'],
    ];
    for (const [body, field] of refusals) {
      const started = performance.now();
      const res = await post(keys.refused, body);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'INVALID_PARAMETER', error: `Invalid parameter '${field}'` });
    }
    expect(await usage('refused')).toEqual(before);
    // A report it delivers costs one report of the month and one request of the day.
    expect((await post(keys.refused, { type: 'sustainability_summary' })).status).toBe(200);
    expect(await usage('refused')).toEqual({ reportsLeft: before.reportsLeft - 1, requestsToday: before.requestsToday + 1 });
  });

  it('accepts 2020-01-01 to today (by quarter) and 1990-01-01 to today (by year)', async () => {
    const quarters = await post(keys.audited, { type: 'sustainability_summary', dateFrom: '2020-01-01', dateTo: today() });
    expect(quarters.status).toBe(200);
    expect(flat(await pdfText(quarters))).toContain('Lifecycle emissions of the assets bought each quarter');
    const years = await post(keys.audited, { type: 'sustainability_summary', dateFrom: '1990-01-01', dateTo: today() });
    expect(years.status).toBe(200);
    const text = flat(await pdfText(years));
    expect(text).toContain('Lifecycle emissions of the assets bought each year');
    expect(text).toMatch(/Trend: the assets bought in an average year of \d{4} to \d{4} carry/);
  });

  it('writes a true trend sentence for a period without purchases', async () => {
    // The demo assets were bought up to yesterday: from the day after the last purchase to today, none was.
    const { prisma } = t.app.services.db;
    const last = await prisma.asset.findFirstOrThrow({
      where: { org_id: orgs.audited!, purchase_date: { not: null } },
      orderBy: { purchase_date: 'desc' },
    });
    const after = new Date(last.purchase_date!.getTime() + 86_400_000).toISOString().slice(0, 10);
    const res = await post(keys.audited, { type: 'sustainability_summary', dateFrom: after, dateTo: today() });
    expect(res.status).toBe(200);
    expect(flat(await pdfText(res))).toContain('Trend: none of the assets in the inventory was bought in the period');
  });
});

describe(`every printed figure of a report is the data's, on ${TEST_DATABASE_KIND}`, () => {
  const PERIOD = { dateFrom: '1990-01-01', dateTo: today() };
  const PHASES = [
    ['Production', 'production_kg'],
    ['Transport', 'transport_kg'],
    ['Use', 'use_phase_kg'],
    ['End of life', 'end_of_life_kg'],
  ] as const;

  /** The organisation's inventory over PERIOD read straight from the database: every asset with its active calculation. */
  async function inventory() {
    const assets = await t.app.services.db.prisma.asset.findMany({
      where: { org_id: orgs.audited!, active_calculation_id: { not: null } },
      include: { active_calculation: { include: { factors: { include: { factor: true } } } } },
    });
    return assets.map((a) => {
      const calc = a.active_calculation!;
      const u = (calc.result as { methodology?: { uncertainty_pct?: number } }).methodology?.uncertainty_pct;
      return { calc, u: typeof u === 'number' ? u : null };
    });
  }

  it.each(['sustainability_summary', 'hotspot_analysis'] as const)(
    '%s: totals, phases, intervals, confidence mix, engine versions and grid factors',
    async (type) => {
      const res = await post(keys.audited, { type, ...PERIOD });
      expect(res.status).toBe(200);
      const [text, plain] = (await pdfTexts(res)).map(flat) as [string, string];
      const view = await assembleReportView(
        { prisma: t.app.services.scopes.for(orgs.audited!), orgId: orgs.audited!, reference: t.app.services.reference, sandbox: false },
        { type, ...PERIOD },
      );

      // The view against the database.
      const rows = await inventory();
      expect(view.asset_count).toBe(rows.length);
      const sumOf = (value: (r: (typeof rows)[number]) => number) => rows.reduce((t, r) => t + value(r), 0);
      const bound = (value: (r: (typeof rows)[number]) => number, side: 'low_kg' | 'high_kg') =>
        sumOf((r) => (r.u === null ? value(r) : uncertaintyInterval(value(r), r.u)[side]));
      expect(view.totals.total_kg_co2e).toBeCloseTo(
        sumOf((r) => r.calc.total_kg_co2e),
        1,
      );
      expect(view.uncertainty.total.low_kg).toBeCloseTo(
        bound((r) => r.calc.total_kg_co2e, 'low_kg'),
        0,
      );
      expect(view.uncertainty.total.high_kg).toBeCloseTo(
        bound((r) => r.calc.total_kg_co2e, 'high_kg'),
        0,
      );
      for (const [, key] of PHASES) {
        expect(view.totals[key]).toBeCloseTo(
          sumOf((r) => r.calc[key]),
          1,
        );
        expect(view.uncertainty.phases[key].low_kg).toBeCloseTo(
          bound((r) => r.calc[key], 'low_kg'),
          0,
        );
        expect(view.uncertainty.phases[key].high_kg).toBeCloseTo(
          bound((r) => r.calc[key], 'high_kg'),
          0,
        );
      }
      // The demo estate has category-default estimates: a wide interval, still above zero.
      expect(rows.some((r) => (r.u ?? 0) >= 45)).toBe(true);
      expect(view.uncertainty.total.low_kg).toBeGreaterThan(0);
      for (const c of view.confidence_mix) {
        const members = rows.filter((r) => r.calc.confidence === c.level);
        expect(c.assets).toBe(members.length);
        expect(c.share_pct).toBeCloseTo((members.length / rows.length) * 100, 1);
        expect(c.uncertainty_pct).toEqual({ min: Math.min(...members.map((r) => r.u!)), max: Math.max(...members.map((r) => r.u!)) });
      }
      expect(view.confidence_mix.reduce((n, c) => n + c.assets, 0)).toBe(rows.length);
      const factors = new Map<string, number>();
      for (const r of rows)
        for (const f of r.calc.factors)
          factors.set(
            `${f.factor.source}|${f.factor.source_version}`,
            (factors.get(`${f.factor.source}|${f.factor.source_version}`) ?? 0) + 1,
          );
      expect(new Map(view.grid_factor_sources.map((s) => [`${s.source}|${s.version}`, s.assets]))).toEqual(factors);
      const engines = new Set(rows.map((r) => r.calc.engine_version));
      expect(view.engine_versions.map((e) => e.version).sort()).toEqual([...engines].sort());

      // The page against the view.
      const range = (i: { low_kg: number; high_kg: number }) => `${fmt.kg(i.low_kg)} to ${fmt.kg(i.high_kg)}`;
      const share = (kg: number) => fmt.pct((kg / view.totals.total_kg_co2e) * 100);
      // The key figures stand side by side: label line, then the numbers, then the units.
      expect(text).toContain(`${fmt.kg(view.totals.total_kg_co2e)} ${fmt.count(view.asset_count)} ${fmt.count(view.calculation_count)}`);
      expect(text).toContain(
        `Lifecycle emissions ${fmt.kgCo2e(view.totals.total_kg_co2e)}, ~80 % interval ${range(view.uncertainty.total)} kg CO₂e`,
      );
      for (const [label, key] of PHASES)
        expect(text).toContain(`${label} ${fmt.kg(view.totals[key])} ${share(view.totals[key])} ${range(view.uncertainty.phases[key])}`);
      expect(text).toContain(`Total ${fmt.kg(view.totals.total_kg_co2e)} 100.0 % ${range(view.uncertainty.total)}`);
      const labels = {
        manufacturer_verified: 'Manufacturer-verified',
        estimated_high: 'Estimated, high',
        estimated_medium: 'Estimated, medium',
        estimated_low: 'Estimated, low',
      };
      for (const c of view.confidence_mix) {
        const u =
          c.uncertainty_pct!.min === c.uncertainty_pct!.max
            ? `±${c.uncertainty_pct!.min} %`
            : `±${c.uncertainty_pct!.min}–${c.uncertainty_pct!.max} %`;
        expect(text).toContain(`${labels[c.level]} ${fmt.count(c.assets)} ${fmt.pct(c.share_pct)} ${fmt.kg(c.total_kg_co2e)} ${u}`);
      }
      for (const e of view.engine_versions) expect(text).toContain(`${e.version} (${fmt.count(e.assets)} assets)`);
      expect(text).toContain(`Grid factors used: ${view.grid_factor_sources.length} sources`);
      // Cells wrap in the table: the text without layout reads each cell's words in order.
      // Wrapped cells (CJK text breaks between any two characters) are compared without white space.
      const packed = plain.replace(/\s/g, '');
      for (const s of view.grid_factor_sources) {
        for (const cell of [s.source, s.version, s.licence!]) expect(packed).toContain(cell.replace(/\s/g, ''));
      }
      // No page ends with a section heading: each is kept with what follows it.
      const HEADING =
        /^(Emissions by lifecycle phase|Confidence and uncertainty|Lifecycle emissions of the assets bought|Purchases over the period|By category|By country of use|Avoided emissions|Grid factors used|Hotspots by|Actions and what they would save|Science Based Targets|Notes)/;
      const pages = (await pdfTexts(await post(keys.audited, { type, ...PERIOD })))[0].split('\f').filter((page) => page.trim());
      expect(pages.length).toBeGreaterThan(1);
      for (const [i, page] of pages.entries()) {
        const lines = page
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        const lastBeforeFooter = lines.at(-2) ?? '';
        expect(lastBeforeFooter, `page ${i + 1}`).not.toMatch(HEADING);
      }
      if (type === 'hotspot_analysis') {
        const h = view.hotspots!;
        expect(text).toContain(
          `Hotspots by model: ${h.models.length < h.models_count ? `top ${h.models.length} of ${h.models_count}` : `all ${h.models_count}`} models`,
        );
        expect(text).toContain(
          `Hotspots by category: ${h.categories.length < h.categories_count ? `top ${h.categories.length} of ${h.categories_count}` : `all ${h.categories_count}`} categories`,
        );
        expect(h.models_count).toBeGreaterThan(h.models.length);
      } else {
        expect(text).toContain(`By category: all ${view.by_category.length} categories`);
      }
    },
  );
});
