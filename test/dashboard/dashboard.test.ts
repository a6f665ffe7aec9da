import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportWorker } from '../../src/exports/worker.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { apiOverview, kgText, seedOrg, type SeededOrg } from './support.ts';

const SELF = 'http://localhost';
const FORM = 'application/x-www-form-urlencoded';

let t: TestApp;
let a: SeededOrg;
let b: SeededOrg;

beforeAll(async () => {
  t = await createTestApp();
  a = await seedOrg(t, 'Alpha', 'Latitude 7440', 'DE');
  b = await seedOrg(t, 'Bravo', 'Precision 3581', 'PL');
});
afterAll(() => t?.close());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  t.request(`/console${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, ...headers }, body });

async function signIn(key: string): Promise<string> {
  const res = await post('/login', `key=${key}`, { origin: SELF });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

const dashboard = async (cookie: string) => {
  const res = await t.request('/console/dashboard', { headers: { cookie } });
  return { status: res.status, headers: res.headers, html: await res.text() };
};

describe(`console dashboard on ${TEST_DATABASE_KIND}`, () => {
  it('asks for sign-in without a session', async () => {
    const res = await t.request('/console/dashboard');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('name="key"');
  });

  it("shows the organisation's totals as the API gives them, and nothing of another organisation", async () => {
    const page = await dashboard(await signIn(a.key));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const api = await apiOverview(t, a.key);
    expect(api.asset_count).toBe(3);
    expect(page.html).toContain(`id="total-kg" data-kg="${api.total_kg_co2e}">${kgText(api.total_kg_co2e)}`);
    expect(page.html).toContain(`id="asset-count">3<`);
    // The whole-life ADPe and PE: the sums of the assets' as GET /v1/assets answers them (4 significant digits), all three counted.
    const assets = (await t.json('/v1/assets?limit=100', { headers: { authorization: `Bearer ${a.key}` } })).body.assets;
    expect(assets).toHaveLength(3);
    for (const [id, field] of [
      ['adpe', 'adpe_kg_sb_eq'],
      ['pe', 'pe_mj'],
    ] as const) {
      const sum = assets.reduce((s: number, x: Record<string, number>) => s + x[field]!, 0);
      const shown = Number(page.html.match(new RegExp(`id="${id}" data-${id}="([^"]+)"`))?.[1]);
      expect(Math.abs(shown - sum), field).toBeLessThanOrEqual(5e-4 * sum);
    }
    expect(page.html).toContain('<span id="impacts-assets">(all assets)</span>');
    // Trend, top lists, confidence, quota and the activity lists are there, with A's rows.
    for (const text of [
      'Latitude 7440',
      'Laptop',
      'Germany',
      a.certificate.certificate_number,
      'Alpha export disk full',
      'Alpha portal down',
      'Alpha hook answered 500',
    ])
      expect(page.html).toContain(text);
    expect(page.html).toMatch(/~80 % interval [\d,.]+ to [\d,.]+ kg/);
    // Not one row of B's.
    for (const text of ['Precision 3581', 'Poland', b.certificate.certificate_number, 'Bravo', b.id]) expect(page.html).not.toContain(text);
  });

  it("revokes a certificate through the API revoke, audit-logged as the signed-in key; never another organisation's", async () => {
    const cookie = await signIn(a.key);
    const foreign = await post(`/dashboard/certificates/${b.certificate.id}/revoke`, '', { origin: SELF, cookie });
    expect(foreign.status).toBe(200);
    expect(await foreign.text()).toMatch(/Certificate not found/);
    const prisma = t.app.services.db.prisma;
    expect((await prisma.certificate.findUniqueOrThrow({ where: { id: b.certificate.id } })).revoked_at).toBeNull();

    expect((await post(`/dashboard/certificates/${a.certificate.id}/revoke`, '', { cookie })).status).toBe(403);
    const res = await post(`/dashboard/certificates/${a.certificate.id}/revoke`, '', { origin: SELF, cookie });
    const html = (await res.text()).replace(/<[^>]+>/g, '');
    expect(html).toContain(`Certificate ${a.certificate.certificate_number} is revoked.`);
    expect(html).toMatch(/revoked \d{4}-\d{2}-\d{2}/);
    const verdict = await t.json(`/verify/${a.certificate.certificate_number}`, { headers: { accept: 'application/json' } });
    expect(verdict.body.verdict).toBe('revoked');
    const audit = await prisma.auditLog.findMany({ where: { org_id: a.id, event: 'certificate.revoked' } });
    expect(audit.map((row) => [row.subject_id, row.actor_key_id])).toEqual([[a.certificate.id, a.keyId]]);
  });

  it('explains an export that cannot be downloaded, and finds none of another organisation', async () => {
    const cookie = await signIn(a.key);
    const prisma = t.app.services.db.prisma;
    const own = await prisma.exportJob.findFirstOrThrow({ where: { org_id: a.id } });
    const failed = await t.request(`/console/dashboard/exports/${own.id}/download`, { headers: { cookie } });
    expect(failed.status).toBe(409);
    expect(await failed.text()).toMatch(/Export failed/);
    const foreign = await prisma.exportJob.findFirstOrThrow({ where: { org_id: b.id } });
    const other = await t.request(`/console/dashboard/exports/${foreign.id}/download`, { headers: { cookie } });
    expect(other.status).toBe(404);
  });

  it('downloads a completed export through its signed URL', async () => {
    const org = await t.createOrg('pro', 'Delta');
    const { key } = await t.createKey(org.id);
    const submitted = await t.json('/v1/org/export/jobs', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(submitted.status).toBe(202);
    const s = t.app.services;
    const worker = new ExportWorker({ db: s.db, scopes: s.scopes, storage: s.exportStorage, log: s.log, softwareVersion: '1.0.0' });
    for (let ran = await worker.runOnce(); ran !== submitted.body.job_id; ran = await worker.runOnce())
      if (ran === null) throw new Error('the export was never claimed');
    const cookie = await signIn(key);
    const link = `/console/dashboard/exports/${submitted.body.job_id}/download`;
    expect((await dashboard(cookie)).html).toContain(`<a href="${link}">Download</a>`);
    const redirect = await t.request(link, { headers: { cookie }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const signed = new URL(redirect.headers.get('location')!);
    const archive = await t.request(`${signed.pathname}${signed.search}`);
    expect(archive.status).toBe(200);
    expect(
      Buffer.from(await archive.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    const audit = await s.db.prisma.auditLog.count({ where: { org_id: org.id, event: 'org.export.job.downloaded' } });
    expect(audit).toBe(1);
  });

  it('says so when the organisation has nothing yet', async () => {
    const org = await t.createOrg('pro', 'Echo');
    const page = await dashboard(await signIn((await t.createKey(org.id)).key));
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="total-kg" data-kg="0">0 kg CO2e');
    expect(page.html).toContain('no purchases in the period');
    expect(page.html).toContain('None yet.');
  });

  it('stops acting as a key once it is revoked', async () => {
    const org = await t.createOrg('pro', 'Charlie');
    const { key, id } = await t.createKey(org.id);
    const cookie = await signIn(key);
    expect((await dashboard(cookie)).status).toBe(200);
    await t.app.services.db.prisma.apiKey.update({ where: { id }, data: { revoked_at: new Date() } });
    const page = await dashboard(cookie);
    expect(page.status).toBe(401);
    expect(page.html).toMatch(/Sign in again/);
  });
});
