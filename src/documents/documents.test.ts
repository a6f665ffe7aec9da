import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateView, emptyReportView, hotspotView, largeReportView, sandboxCertificateView, summaryView } from './fixtures.ts';
import { closeDocumentRenderer, MAX_WAITING_RENDERS, renderCertificatePdf, renderInWorker, renderReportPdf } from './index.ts';

// poppler-utils (pdftotext, pdfinfo, pdffonts) reads the PDFs as any reader's software would.
const run = promisify(execFile);
let dir: string;

async function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdffonts', pdf: Buffer): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, pdf);
  const args = tool === 'pdftotext' ? ['-enc', 'UTF-8', file, '-'] : [file];
  return (await run(tool, args)).stdout;
}
const text = (pdf: Buffer) => poppler('pdftotext', pdf);
const pages = async (pdf: Buffer) => Number(/^Pages:\s+(\d+)/m.exec(await poppler('pdfinfo', pdf))?.[1]);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'documents-'));
});
afterAll(async () => {
  await closeDocumentRenderer();
  await rm(dir, { recursive: true, force: true });
});

describe('certificate PDF', () => {
  it('is one A4 page whose text has the number, product, total, phases, methodology, sources and verification', async () => {
    const pdf = await renderCertificatePdf(certificateView);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const info = await poppler('pdfinfo', pdf);
    expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    expect(info).toMatch(/Pages:\s+1\n/);
    const words = await text(pdf);
    for (const expected of [
      'LCF-7K2M9QX4TB',
      'Dell Latitude 5440',
      'Müller GmbH',
      'Germany (DE)',
      '287.9',
      // The phase chart's labels stay text.
      'Production',
      '214.6 kg · 74.5 %',
      'End of life',
      'ISO 14067:2018',
      'lcf-engine 3.4.1',
      '± 15.0 %',
      'GLEC Framework v3 default factors',
      '1 June 2023',
      '14 March 2025, 09:30 UTC',
      'cert-2025-01-Qm9X2kLp',
      '3F9A 1C7B E24D 08F5',
      'https://carbon.example.com/v1/certificate/verify?',
    ]) {
      expect(words).toContain(expected);
    }
    expect(words).not.toContain('TEST');
  });

  it('embeds subsets of Noto Sans and, for Chinese, Noto Sans SC, so a CJK organisation name is text', async () => {
    const pdf = await renderCertificatePdf(sandboxCertificateView);
    const words = await text(pdf);
    expect(words).toContain('北京绿色科技有限公司 (Beijing Green Tech)');
    const fonts = await poppler('pdffonts', pdf);
    expect(fonts).toMatch(/\+NotoSans-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(fonts).toMatch(/\+NotoSansSC-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(fonts).not.toMatch(/Helvetica/);
  });

  it('marks a sandbox certificate as a test on the page', async () => {
    const words = await text(await renderCertificatePdf(sandboxCertificateView));
    expect(words).toContain('TEST — sandbox data, not a valid certificate');
    expect(words).toContain('TST-Q8W3E5R7T9');
  });

  it('gives the same bytes for the same view, dated by the certificate', async () => {
    const [a, b] = await Promise.all([renderCertificatePdf(certificateView), renderCertificatePdf(certificateView)]);
    expect(a.equals(b)).toBe(true);
    expect(await poppler('pdfinfo', a)).toMatch(/CreationDate:\s+Fri Mar 14 09:30:00 2025 UTC/);
    const later = await renderCertificatePdf({ ...certificateView, issued_at: '2025-03-15T09:30:00.000Z' });
    expect(later.equals(a)).toBe(false);
  });
});

describe('report PDF', () => {
  it('sustainability summary: totals by phase, month, category and country, trend, savings, targets, period semantics', async () => {
    const pdf = await renderReportPdf(summaryView);
    const words = await text(pdf);
    for (const expected of [
      'SUSTAINABILITY SUMMARY',
      'Müller GmbH',
      '1 January 2025 – 31 December 2025',
      'Covers calculations made between 1 January 2025 and 31 December 2025',
      '184,312',
      '131,403 kg · 71.3 %',
      'Lifecycle emissions of the assets bought each month (kg CO₂e)',
      'Dec 2025',
      'Trend: the assets bought in an average month of Jul 2025',
      'Lifecycle emissions 184,312 kg CO₂e, ~80 % interval 130,862 to 269,096 kg CO₂e',
      'Estimated, low',
      '±45–110 %',
      'By category',
      'Docking station',
      'By country of use',
      'China (CN) 北京办公室',
      '30,793 kg CO₂e',
      'Near-term target',
      '42.0 %',
    ]) {
      expect(words).toContain(expected);
    }
    expect(await pages(pdf)).toBeLessThanOrEqual(3);
  });

  it('hotspot analysis: ranked categories, models and components, each action with its saving', async () => {
    const words = await text(await renderReportPdf(hotspotView));
    for (const expected of [
      'HOTSPOT ANALYSIS',
      'Hotspots by model: top 7 of 37 models',
      'Dell Latitude 5440',
      'Mainboard and integrated circuits',
      'Extend the life of 120 laptops by one year',
      '8,940',
      'Switch 35 monitors to power-saving mode',
    ]) {
      expect(words).toContain(expected);
    }
    // Components are ranked: electricity (44,987 kg) before the display panel (31,005 kg).
    expect(words.indexOf('Electricity in use')).toBeLessThan(words.indexOf('Display panel'));
    // Actions for the same devices are alternatives: no total of their savings.
    expect(words).not.toContain('16,271');
  });

  it('an empty period gives one honest page saying there is no data, with no charts', async () => {
    const pdf = await renderReportPdf(emptyReportView);
    const words = await text(pdf);
    expect(words).toContain('No data for this period');
    expect(words).toContain('Müller GmbH 北京 has no assets in this period');
    expect(words).not.toContain('Emissions by lifecycle phase');
    expect(words).not.toContain('bought each month');
    expect(await pages(pdf)).toBe(1);
  });

  it('48 categories and 200 countries: every category listed, countries beyond 59 summed in one row, said in the notes', async () => {
    const pdf = await renderReportPdf(largeReportView());
    const words = await text(pdf);
    expect(words).toContain('Network switch class 5'); // the 48th category
    expect(words).toContain('Country 059');
    expect(words).not.toContain('Country 060');
    expect(words).toContain('All other 141 countries');
    expect(words).toContain('Countries: the 59 largest of 200 are listed; the other 141 are summed');
    expect(words).toMatch(/The chart shows the (\d+) largest categories; the table below has the rest\./);
    expect(await pages(pdf)).toBeLessThanOrEqual(6);
  });

  it('marks a sandbox report as test data', async () => {
    const words = await text(await renderReportPdf({ ...hotspotView, sandbox: true }));
    expect(words).toContain('TEST — sandbox data, not a real report');
  });
});

describe('rendering off the event loop', () => {
  it('draws in a worker thread while the caller’s event loop keeps turning', async () => {
    await renderInWorker({ kind: 'certificate', view: certificateView }); // warm: fonts and chart libraries loaded
    // The longest gap between ticks of a 5 ms timer: drawn on this thread, it would be the whole render.
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      longestGap = Math.max(longestGap, performance.now() - last);
      last = performance.now();
    }, 5);
    const started = performance.now();
    const rendered = await Promise.all([
      renderInWorker({ kind: 'report', view: largeReportView() }),
      renderInWorker({ kind: 'report', view: summaryView }),
    ]);
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20)); // a tick after the end, so a block at the end counts too
    clearInterval(ticker);
    for (const { threadId: worker } of rendered) expect(worker).not.toBe(threadId);
    expect(longestGap).toBeLessThan(Math.max(100, elapsed / 3));
  });

  it('bounds the queue: beyond the waiting renders a caller gets 503 DOCUMENT_RENDERER_BUSY with Retry-After', async () => {
    const results = await Promise.allSettled(Array.from({ length: MAX_WAITING_RENDERS + 6 }, () => renderReportPdf(emptyReportView)));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(MAX_WAITING_RENDERS);
    for (const error of refused) expect(error).toMatchObject({ status: 503, code: 'DOCUMENT_RENDERER_BUSY', headers: { 'Retry-After': '5' } });
  });
});
