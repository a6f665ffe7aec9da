// npm run bench:documents — PDF documents on PostgreSQL, over HTTP against a service process:
//  1. certificates: POST /v1/certificate (issue) and GET /v1/certificate?id= (the PDF), p50/p95 of each and of both;
//  2. reports over an organisation of BENCH_REPORT_ASSETS assets (default 10 000, seeded with src/assets/seed-demo.ts):
//     POST /v1/report for both types, p50/p95/max (target: <= 2 s), plus the view assembly alone (in process).
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server; a fresh database is made and dropped.
import { adminJson, freshPostgres, startService } from './support.ts';
import { openDatabase } from '../src/db/database.ts';
import { seedDemo } from '../src/assets/seed-demo.ts';
import { ReferenceStore } from '../src/reference/store.ts';
import { scopeToOrganization } from '../src/auth/org-scope.ts';
import { assembleReportView } from '../src/reports/view.ts';
import type { ReportType } from '../src/reports/request.ts';

const ASSETS = Number(process.env.BENCH_REPORT_ASSETS ?? 10_000);
const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? 30);
const REPORTS = Number(process.env.BENCH_REPORTS ?? 7);
const TARGET_MS = 2_000;
const QUOTA_LIMITS = 'day.enterprise=100000000,minute.enterprise=100000000,report.enterprise=100000';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
};
const stats = (ms: number[]) => ({
  p50_ms: percentile(ms, 50),
  p95_ms: percentile(ms, 95),
  max_ms: Math.round(Math.max(...ms)),
  n: ms.length,
});

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await fn();
  return [performance.now() - start, result];
}

const db = await freshPostgres();
const service = await startService({ DATABASE_URL: db.url, QUOTA_LIMITS });
const direct = await openDatabase({ kind: 'postgres', url: db.url, poolSize: 4 });
try {
  const org = await adminJson(service.url, '/orgs', { name: 'Bench Documents GmbH', plan: 'enterprise' });
  const { key } = await adminJson(service.url, '/keys', { org_id: org.id });
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${service.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
    if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };

  // 1. certificates: one stored calculation per certificate, made first.
  const calculations: string[] = [];
  for (let i = 0; i < CERTIFICATES + 3; i++) {
    const country = ['DE', 'FR', 'NL', 'SE', 'PL'][i % 5]!;
    const body = (await (
      await call(`/v1/footprint?brand=Dell&model=Latitude%205440&country=${country}&ram_gb=${8 + (i % 4) * 8}`)
    ).json()) as { calculation_id: string };
    calculations.push(body.calculation_id);
  }
  const issue: number[] = [];
  const download: number[] = [];
  const both: number[] = [];
  for (const [i, calculation_id] of calculations.entries()) {
    const [issueMs, certificate] = await timed(
      async () =>
        (await (await call('/v1/certificate', { method: 'POST', body: JSON.stringify({ calculation_id }) })).json()) as { id: string },
    );
    const [downloadMs] = await timed(async () => (await call(`/v1/certificate?id=${certificate.id}`)).arrayBuffer());
    // The first three warm up the renderer threads (fonts, QR, charts).
    if (i < 3) continue;
    issue.push(issueMs);
    download.push(downloadMs);
    both.push(issueMs + downloadMs);
  }

  // 2. reports over a seeded estate
  const seedStart = performance.now();
  const seeded = await seedDemo(direct.prisma, org.id!, ASSETS, undefined, { seed: 42 });
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const reference = await ReferenceStore.load(direct.prisma);
  const scoped = scopeToOrganization(direct.prisma, org.id!);
  const dateTo = new Date().toISOString().slice(0, 10);
  const period = { dateFrom: `${Number(dateTo.slice(0, 4)) - 1}${dateTo.slice(4, 7)}-01`, dateTo };
  const reports: Record<string, ReturnType<typeof stats> & { pages?: number; kb?: number }> = {};
  for (const type of ['sustainability_summary', 'hotspot_analysis'] satisfies ReportType[]) {
    const ms: number[] = [];
    let size = { pages: 0, kb: 0 };
    for (let i = 0; i <= REPORTS; i++) {
      const [elapsed, res] = await timed(async () => {
        const r = await call('/v1/report', { method: 'POST', body: JSON.stringify({ type, ...period }) });
        return { id: r.headers.get('x-report-id')!, bytes: (await r.arrayBuffer()).byteLength };
      });
      if (i === 0) continue; // warm-up
      ms.push(elapsed);
      const row = await direct.prisma.report.findUniqueOrThrow({ where: { id: res.id }, select: { pages: true } });
      size = { pages: row.pages ?? 0, kb: Math.round(res.bytes / 1024) };
    }
    reports[`POST /v1/report ${type}`] = { ...stats(ms), ...size };
    const view: number[] = [];
    for (let i = 0; i <= REPORTS; i++) {
      const [elapsed] = await timed(() =>
        assembleReportView({ prisma: scoped, orgId: org.id!, reference, sandbox: false }, { type, ...period }),
      );
      if (i > 0) view.push(elapsed);
    }
    reports[`  view assembly only (in process), ${type}`] = stats(view);
  }

  console.log(`\ncertificates (HTTP, sequential, PostgreSQL; ${CERTIFICATES} each after 3 warm-ups):`);
  console.table({
    'POST /v1/certificate (issue)': stats(issue),
    'GET /v1/certificate?id= (PDF)': stats(download),
    'issue + PDF': stats(both),
  });
  console.log(
    `\nreports over ${ASSETS} assets (seed-demo: ${seedSeconds.toFixed(1)} s, ${seeded.combinations} device/country footprints), period ${period.dateFrom} to ${period.dateTo}, ${REPORTS} each after a warm-up:`,
  );
  console.table(reports);
  const worst = Math.max(
    ...Object.entries(reports)
      .filter(([name]) => name.startsWith('POST'))
      .map(([, r]) => r.p95_ms),
  );
  console.log(`report p95 ${worst} ms: ${worst <= TARGET_MS ? 'within' : 'OVER'} the ${TARGET_MS} ms target`);
} finally {
  await direct.close();
  await service.stop();
  await db.drop();
}
