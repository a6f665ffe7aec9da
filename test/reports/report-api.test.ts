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

/** POST /v1/report over HTTP (in process): access rules, validation, the PDF, its records and the monthly limit. */
let t: TestApp;
let workDir: string;
const keys: Record<string, string> = {};
const orgs: Record<string, string> = {};
const REPORT_LIMIT = 3;

const post = (key: string | undefined, body: unknown) =>
  t.request('/v1/report', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function pdfText(response: Response): Promise<string> {
  const file = path.join(workDir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return (await promisify(execFile)('pdftotext', ['-layout', file, '-'])).stdout;
}

const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'lcf-report-api-'));
  t = await createTestApp({ QUOTA_LIMITS: `${UNLIMITED},report.pro=${REPORT_LIMIT}` });
  const org = async (name: string, plan: string, label: string, options: Parameters<TestApp['createKey']>[1] = {}) => {
    orgs[label] ??= (await t.createOrg(plan, name)).id;
    keys[label] = (await t.createKey(orgs[label]!, options)).key;
  };
  await org('Free Ltd', 'free', 'free');
  await org('Müller Reporting GmbH', 'pro', 'pro');
  keys.proTest = (await t.createKey(orgs.pro!, { environment: 'test' })).key;
  keys.proNoContext = (await t.createKey(orgs.pro!, { org_context: false })).key;
  keys.proTestNoContext = (await t.createKey(orgs.pro!, { environment: 'test', org_context: false })).key;
  await org('Empty Ltd', 'pro', 'empty');
  await org('Busy Ltd', 'pro', 'busy');
  await org('Big Corp', 'enterprise', 'enterprise');
  await seedDemo(t.app.services.db.prisma, orgs.pro!, 60, undefined, { seed: 5, services: t.app.services });
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
    [{ type: 'hotspot_analysis', dateFrom: '2025-06-01', dateTo: '2025-05-31' }, 'dateFrom', "dateFrom: must be on or before dateTo (2025-05-31), got '2025-06-01'"],
    [{ type: 'hotspot_analysis', dateFrom: '2020-05-30', dateTo: '2025-05-31' }, 'dateFrom', 'dateFrom: a report covers at most 5 years: for dateTo 2025-05-31, dateFrom must be on or after 2020-05-31'],
    [{ type: 'hotspot_analysis', dateFrom: '1989-12-31', dateTo: '1990-06-30' }, 'dateFrom', "dateFrom: must be on or after 1990-01-01, got '1989-12-31'"],
    [{ type: 'hotspot_analysis', dateFrom: 20250101 }, 'dateFrom', 'dateFrom: '],
    [{ type: 'hotspot_analysis', dateTo: '2025-01-01'.repeat(1_000) }, 'dateTo', 'dateTo: must be at most 10 characters, got 10000'],
    [{ type: 'hotspot_analysis', dateTo: '2025-01-0\u0000' }, 'dateTo', 'dateTo: must not contain control characters'],
    [{ type: 'x'.repeat(100_000) }, 'type', 'type: must be'],
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

  it('answers a sustainability summary as a PDF naming the organisation and its totals, recorded and audit-logged', async () => {
    const period = { dateFrom: '2025-01-01', dateTo: today() };
    const res = await post(keys.pro, { type: 'sustainability_summary', ...period });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="sustainability-summary_${period.dateFrom}_${period.dateTo}.pdf"`);
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
    expect(report).toMatchObject({ org_id: orgs.pro, type: 'sustainability_summary', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(report.date_from?.toISOString().slice(0, 10)).toBe(period.dateFrom);
    expect(report.date_to?.toISOString().slice(0, 10)).toBe(period.dateTo);
    expect(report.pages).toBeGreaterThanOrEqual(1);
    const audit = await t.app.services.db.prisma.auditLog.findFirstOrThrow({ where: { org_id: orgs.pro, event: 'report.created', subject_id: id } });
    expect(audit).toMatchObject({ subject_type: 'report', data: { type: 'sustainability_summary', date_from: period.dateFrom, date_to: period.dateTo, asset_count: expected.asset_count } });
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

  it(`admits exactly ${REPORT_LIMIT} of 10 concurrent reports under a monthly limit of ${REPORT_LIMIT}, the rest 429`, async () => {
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
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(REPORT_LIMIT));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(nextMonth));
    expect(await t.app.services.db.prisma.report.count({ where: { org_id: orgs.busy } })).toBe(REPORT_LIMIT);
    const remaining = responses.filter((r) => r.status === 200).map((r) => r.headers.get('x-report-remaining')).sort();
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
    const operation = body.paths['/report'].post;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
    expect(operation.requestBody.content['application/json'].schema.properties.type.enum).toEqual(['sustainability_summary', 'hotspot_analysis']);
    expect(operation.responses['200'].content).toHaveProperty('application/pdf');
  });
});
