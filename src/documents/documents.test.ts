import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { threadId } from 'node:worker_threads';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateView, emptyReportView, hotspotView, largeReportView, sandboxCertificateView, summaryView } from './fixtures.ts';
import * as fmt from './format.ts';
import {
  closeDocumentRenderer,
  configureDocumentRenderer,
  MAX_WAITING_RENDERS,
  renderCertificatePdf,
  renderInWorker,
  renderReportPdf,
  renderThreadCount,
} from './index.ts';

// poppler-utils (pdftotext, pdfinfo, pdffonts) reads the PDFs as any reader's software would.
const run = promisify(execFile);
let dir: string;

async function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdffonts', pdf: Buffer, options: string[] = []): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  await writeFile(file, pdf);
  const args = tool === 'pdftotext' ? ['-enc', 'UTF-8', file, '-'] : [...options, file];
  return (await run(tool, args)).stdout;
}
const text = (pdf: Buffer) => poppler('pdftotext', pdf);
const pages = async (pdf: Buffer) => Number(/^Pages:\s+(\d+)/m.exec(await poppler('pdfinfo', pdf))?.[1]);
// pdftotext wraps right-to-left text in embedding controls (U+202B … U+202C): invisible, left out here.
const plain = async (pdf: Buffer) => (await text(pdf)).replace(/[\u202a-\u202e\u2066-\u2069]/g, '');

/** Glyph ids the page content draws: 0 is .notdef, the empty box of a character the font lacks. */
function drawnGlyphs(pdf: Buffer): string[] {
  const glyphs: string[] = [];
  const source = pdf.toString('latin1');
  for (const match of source.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    let content: string;
    try {
      content = zlib.inflateSync(pdf.subarray(start, source.indexOf('endstream', start))).toString('latin1');
    } catch {
      continue;
    }
    // Page content: text objects show hex strings of 2-byte glyph ids (Identity-H).
    for (const block of content.match(/\bBT\b[\s\S]*?\bET\b/g) ?? []) {
      for (const [, hex] of block.matchAll(/<([0-9a-f]+)>/g)) glyphs.push(...(hex!.match(/.{4}/g) ?? []));
    }
  }
  return glyphs;
}

/** The /Alt texts of the structure elements (pdfkit writes them as escaped literal strings, UTF-16BE when not ASCII). */
function altTexts(pdf: Buffer): string[] {
  return [...pdf.toString('latin1').matchAll(/\/Alt \(((?:\\.|[^\\)])*)\)/g)].map(([, literal]) => {
    const bytes = Buffer.from(
      literal!.replace(/\\([nrtbf()\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' })[c] ?? c),
      'latin1',
    );
    return bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2).swap16().toString('utf16le') : bytes.toString('latin1');
  });
}

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

describe('names in any script', () => {
  // Each name as a customer writes it, the font that draws it, and what pdftotext gives back. A line
  // mixing directions comes out in pieces: poppler orders the pieces of a line left to right, each in
  // logical order, and moves the space next to a right-to-left piece to its other side. So names
  // with a number or a Latin word in right-to-left text are checked piece by piece.
  const cases = [
    {
      script: 'Arabic',
      organization: 'شركة الفطيم للتجارة',
      brand: 'الفطيم',
      name: 'حاسوب محمول 14 برو',
      font: 'NotoSansArabic',
      pieces: ['شركة الفطيم للتجارة', 'الفطيم حاسوب محمول', '14', 'برو'],
    },
    {
      script: 'Hebrew',
      organization: 'שרת ישראלי בע״מ',
      brand: 'שרת',
      name: 'מחשב נייד דגם 14 פרו',
      font: 'NotoSansHebrew',
      pieces: ['שרת ישראלי בע״מ', 'שרת מחשב נייד דגם', '14', 'פרו'],
    },
    {
      script: 'Korean',
      organization: '삼성전자 주식회사',
      brand: '삼성',
      name: '갤럭시 북4 프로',
      font: 'NotoSansKR',
      pieces: ['삼성전자 주식회사', '삼성 갤럭시 북4 프로'],
    },
    {
      script: 'Chinese',
      organization: '联想（北京）有限公司',
      brand: '联想',
      name: '小新 Pro 14',
      font: 'NotoSansSC',
      pieces: ['联想（北京）有限公司', '联想 小新 Pro 14'],
    },
    {
      script: 'emoji',
      organization: 'Green IT 🌱♻ GmbH',
      brand: 'Eco',
      name: 'Laptop 💻 14',
      font: 'NotoEmoji',
      pieces: ['Green IT 🌱♻ GmbH', 'Eco Laptop 💻 14'],
    },
    {
      script: 'Latin and Arabic',
      organization: 'Al-Futtaim شركة الفطيم Trading',
      brand: 'Dell',
      name: 'Latitude 5440 حاسوب',
      font: 'NotoSansArabic',
      pieces: ['Al-Futtaim', 'شركة الفطيم', 'Trading', 'Dell Latitude 5440', 'حاسوب'],
    },
  ];

  for (const { script, organization, brand, name, font, pieces } of cases) {
    it(`${script}: the names are text in ${font}, extracted as written, with no glyph missing`, async () => {
      const pdf = await renderCertificatePdf({
        ...certificateView,
        organization_name: organization,
        product: { ...certificateView.product, brand, name },
      });
      const words = await plain(pdf);
      for (const piece of pieces) expect(words).toContain(piece);
      expect(await poppler('pdffonts', pdf)).toMatch(new RegExp(`\\+${font}-(Regular|Bold)\\s+CID TrueType\\s+Identity-H\\s+yes yes yes`));
      const glyphs = drawnGlyphs(pdf);
      expect(glyphs.length).toBeGreaterThan(500);
      expect(glyphs).not.toContain('0000');
      expect(await pages(pdf)).toBe(1);
    });
  }

  it('a report draws and extracts names in other scripts in its title, tables and charts', async () => {
    const byCategory = summaryView.by_category.map((row, i) => ({
      ...row,
      label: ['شركة الفطيم', 'מחשב נייד', '삼성 노트북'][i] ?? row.label,
    }));
    const pdf = await renderReportPdf({ ...summaryView, organization_name: 'שרת ישראלי בע״מ', by_category: byCategory });
    const words = await plain(pdf);
    for (const name of ['שרת ישראלי בע״מ', 'شركة الفطيم', 'מחשב נייד', '삼성 노트북']) expect(words).toContain(name);
    // Chart labels and table cells: each category twice.
    expect(words.split('삼성 노트북').length - 1).toBe(2);
    expect(drawnGlyphs(pdf)).not.toContain('0000');
  });

  it('a script no embedded font has shows replacement marks and still extracts as written', async () => {
    const pdf = await renderCertificatePdf({ ...certificateView, organization_name: 'บริษัท ไทย จำกัด' });
    expect(await plain(pdf)).toContain('บริษัท ไทย จำกัด');
    expect(drawnGlyphs(pdf)).not.toContain('0000');
  });
});

describe('tagged PDF', () => {
  const structure = async (pdf: Buffer) => poppler('pdfinfo', pdf, ['-struct-text']);
  /** Element types in document order, from pdfinfo's indented tree. */
  const elements = (tree: string) =>
    [...tree.matchAll(/^\s*([A-Z][A-Za-z0-9]*)\b(?: \((?:block|inline)\)|:)?$/gm)].map(([, type]) => type!);

  it('a certificate: tagged, in English, headings, tables, figures with the charted figures as alternative text, the QR code a link', async () => {
    const pdf = await renderCertificatePdf(certificateView);
    const info = await poppler('pdfinfo', pdf);
    expect(info).toMatch(/^Tagged:\s+yes$/m);
    expect(pdf.toString('latin1')).toMatch(/\/Lang \(en\)/);
    const tree = await structure(pdf);
    const types = elements(tree);
    expect(types[0]).toBe('Document');
    expect(types.filter((t) => t === 'H1')).toHaveLength(1);
    expect(types.filter((t) => t === 'H2')).toHaveLength(4);
    expect(types.filter((t) => t === 'Figure')).toHaveLength(2);
    expect(types).toContain('Link');
    // Headings in reading order, the title first.
    const order = ['Dell Latitude 5440', 'Lifecycle phases', 'Methodology', 'Data sources', 'Verification'].map((h) => tree.indexOf(h));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    // The data source table: a header row of TH, one row of TD per source.
    expect(tree).toMatch(/TH\n\s+"Used for"/);
    expect(tree).toMatch(/TD\n\s+"GLEC Framework v3 default factors"/);
    // Page furniture is not content: the footer is an artifact.
    expect(tree).not.toContain('Page 1 of 1');
    expect(await text(pdf)).toContain('Page 1 of 1');
    const alts = altTexts(pdf);
    expect(alts).toContain(
      'Lifecycle phases of the product, kg CO₂e and share of the total: Production 214.6 kg · 74.5 %; Transport 12.3 kg · 4.3 %; Use 58.9 kg · 20.5 %; End of life 2.1 kg · 0.7 %.',
    );
    expect(alts).toContain(`QR code of the address that verifies this certificate: ${certificateView.verify_url}`);
  });

  it('a report: tagged, its sections in reading order in the structure and in the extracted text', async () => {
    const pdf = await renderReportPdf(summaryView);
    expect(await poppler('pdfinfo', pdf)).toMatch(/^Tagged:\s+yes$/m);
    const sections = [
      'SUSTAINABILITY SUMMARY',
      'What this report covers',
      'Lifecycle emissions',
      'Emissions by lifecycle phase',
      'bought each month',
      'Trend:',
      'By category',
      'By country of use',
      'Avoided emissions',
      'Notes',
    ];
    for (const read of [await structure(pdf), await text(pdf)]) {
      const at = sections.map((s) => read.indexOf(s));
      expect(at.every((position, i) => position >= 0 && (i === 0 || position > at[i - 1]!))).toBe(true);
    }
    const types = elements(await structure(pdf));
    expect(types.filter((t) => t === 'Figure').length).toBe(4);
    expect(types.filter((t) => t === 'Table').length).toBeGreaterThanOrEqual(3);
    const months = altTexts(pdf).find((alt) => alt.startsWith('Lifecycle emissions of the assets bought each month'));
    const [first, last] = [summaryView.trend.buckets[0]!, summaryView.trend.buckets.at(-1)!];
    expect(months).toContain(`${first.label} ${fmt.kg(first.total_kg_co2e)} kg;`);
    expect(months).toMatch(new RegExp(`${last.label} ${fmt.kg(last.total_kg_co2e)} kg\\.$`));
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
    for (const error of refused)
      expect(error).toMatchObject({ status: 503, code: 'DOCUMENT_RENDERER_BUSY', headers: { 'Retry-After': '5' } });
  });

  it('starts a thread for the first document and stops it after the idle time, giving its memory back', async () => {
    await closeDocumentRenderer();
    configureDocumentRenderer({ idleMs: 300 });
    try {
      expect(renderThreadCount()).toBe(0);
      await renderCertificatePdf(certificateView);
      expect(renderThreadCount()).toBe(1);
      const deadline = Date.now() + 10_000;
      while (renderThreadCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(renderThreadCount()).toBe(0);
      // The next document starts a thread again.
      expect((await renderCertificatePdf(certificateView)).subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await closeDocumentRenderer();
      configureDocumentRenderer({ idleMs: 60_000 });
    }
  });
});
