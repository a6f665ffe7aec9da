// tsx src/documents/preview.ts [OUT_DIR] [RUNS]: renders every fixture through the worker pool into
// OUT_DIR (default $TMPDIR/lcf-documents) to look at (`pdftoppm -png -r 60 FILE.pdf PREFIX`), and prints
// render time p50/max over RUNS renders of each after one warm-up.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  certificateView,
  emptyReportView,
  hotspotView,
  largeReportView,
  longNameCertificateView,
  manySourcesCertificateView,
  refurbishmentCertificateView,
  revokedCertificateView,
  sandboxCertificateView,
  savingsCertificateView,
  summaryView,
} from './fixtures.ts';
import type { CertificateView } from './views.ts';
import { closeDocumentRenderer, RENDER_THREADS, renderCertificatePdf, renderReportPdf } from './index.ts';

const named = (view: CertificateView, brand: string, name: string, organization_name: string): CertificateView => ({
  ...view,
  product: { ...view.product, brand, name },
  organization_name,
});

const out = process.argv[2] ?? path.join(os.tmpdir(), 'lcf-documents');
const runs = Number(process.argv[3] ?? 15);

const documents: [string, () => Promise<Buffer>][] = [
  ['certificate', () => renderCertificatePdf(certificateView)],
  ['certificate-sandbox-cjk', () => renderCertificatePdf(sandboxCertificateView)],
  ['certificate-savings', () => renderCertificatePdf(savingsCertificateView)],
  ['certificate-refurbishment', () => renderCertificatePdf(refurbishmentCertificateView)],
  ['certificate-revoked', () => renderCertificatePdf(revokedCertificateView)],
  // Names in the scripts customers write: a footprint in Korean, savings in Arabic, a refurbishment in Hebrew.
  ['certificate-korean', () => renderCertificatePdf(named(certificateView, '삼성전자', '갤럭시 북3 프로 14', '서울 재활용 주식회사'))],
  [
    'certificate-savings-arabic',
    () => renderCertificatePdf(named(savingsCertificateView, 'هواوي', 'ميت بوك إكس برو 14', 'شركة الخليج لإعادة التدوير')),
  ],
  [
    'certificate-refurbishment-hebrew',
    () => renderCertificatePdf(named(refurbishmentCertificateView, 'לנובו', 'מחשב נייד ThinkPad T14 דור 3', 'מחזור ישראל בע״מ')),
  ],
  ['certificate-200-char-name-6-sources', () => renderCertificatePdf(longNameCertificateView)],
  ['certificate-16-sources', () => renderCertificatePdf(manySourcesCertificateView)],
  ['summary', () => renderReportPdf(summaryView)],
  ['hotspots', () => renderReportPdf(hotspotView)],
  ['empty', () => renderReportPdf(emptyReportView)],
  ['report-48-categories-200-countries', () => renderReportPdf(largeReportView())],
];

await mkdir(out, { recursive: true });
console.log(`render threads: ${RENDER_THREADS}, ${runs} renders each, one at a time`);
for (const [name, render] of documents) {
  const pdf = await render();
  await writeFile(path.join(out, `${name}.pdf`), pdf);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await render();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(36)} ${String(pdf.length).padStart(7)} bytes  p50 ${Math.round(ms[Math.floor(ms.length / 2)]!)} ms  max ${Math.round(ms.at(-1)!)} ms`,
  );
}
await closeDocumentRenderer();
