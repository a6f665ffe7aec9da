import QRCode from 'qrcode';
import {
  CERTIFICATE_TITLES,
  PRODUCT_LABEL,
  headline,
  IMPACTS_AVOIDED_LABEL,
  methodologyRows,
  revokedNotice,
  statementRows,
  subjectRows,
  type Row,
} from './certificate-facts.ts';
import * as fmt from './format.ts';
import { textWidth } from './fonts.ts';
import { COLORS, HEADING_HEIGHT, PdfWriter, type Column } from './pdf.ts';
import { phaseChart } from './phases.ts';
import type { CertificateView } from './views.ts';

/** The unit of the figure in the box. */
const UNIT = 'kg CO₂e';
const SANDBOX_CERTIFICATE = 'TEST — sandbox data, not a valid certificate';
/** The longest section title, so the longest sentence about where the signed facts are is measured. */
const PHASES_TITLE = 'Lifecycle phases (kg CO₂e and share of the total)';
/** The QR code, points (about 25 mm: scans from a printout). */
const QR_SIZE = 70;
const VERIFY_LABELS = 80;
const TABLE_SIZE = 7;
/** Width of the label column of a savings or refurbishment statement: its labels are sentences. */
const STATEMENT_LABELS = 220;
/** Product names up to this many characters print large; longer ones smaller, so 200 characters take three lines. */
const SHORT_TITLE = 60;

/** Height of PdfWriter.keyValues for these rows, measured before drawing so a section is placed whole. */

/**
 * One A4 page for the usual certificate: the verification block (QR code, key id, fingerprint) keeps
 * the foot of page 1, and only what does not fit above it continues on page 2. Its sentence about
 * where the signed facts are is written last, when the page count is known.
 */
export async function certificatePdf(view: CertificateView): Promise<Buffer> {
  const { statement } = view;
  const product = fmt.productName(view.product.brand, view.product.name);
  const pdf = new PdfWriter({
    title: `CO₂ impact certificate ${view.certificate_number}`,
    subject: `${CERTIFICATE_TITLES[statement.kind]}: ${product}`,
    author: view.organization_name,
    createdAt: view.issued_at,
  });
  const { left, width } = pdf;
  const revoked = view.revoked_at ? `Revoked on ${fmt.date(view.revoked_at)}` : undefined;

  if (view.revoked_at) {
    const notice = revokedNotice(view.revoked_at);
    pdf.notice(notice.title, `${notice.body} Its verification page says the same.`, COLORS.warning, COLORS.warningFaint);
  }
  if (view.sandbox) {
    pdf.notice(
      SANDBOX_CERTIFICATE,
      'Issued with a test key (svc_test_) from the organisation’s sandbox. The figures are example data; its signature checks out, and its verification page says it is a sandbox certificate.',
      COLORS.warning,
      COLORS.warningFaint,
    );
  }

  // Header: what this is and which certificate on one line each side, then the product across the page.
  const top = pdf.y;
  const idWidth = 200;
  pdf.line('CO₂ IMPACT CERTIFICATE', left, top, width - idWidth, { size: 9, bold: true, color: COLORS.accent });
  pdf.textAt(CERTIFICATE_TITLES[statement.kind], left, top + 13, width - idWidth - 10, { size: 9.5, color: COLORS.muted, maxLines: 1 });
  pdf.line(`Certificate ${view.certificate_number}`, left + width - idWidth, top - 1, idWidth, { size: 11, bold: true, align: 'right' });
  pdf.line(`Issued ${fmt.dateTime(view.issued_at)}`, left + width - idWidth, top + 14, idWidth, {
    size: 8.5,
    color: COLORS.muted,
    align: 'right',
  });
  const titleStyle =
    product.length > SHORT_TITLE
      ? { size: 13, bold: true, leading: 1.2, maxLines: 6 }
      : { size: 19, bold: true, leading: 1.2, maxLines: 3 };
  pdf.y = top + 32 + pdf.title(product, left, top + 32, width, titleStyle) + 6;
  pdf.rule(COLORS.muted, 0.8);
  pdf.space(12);

  // Who and what on the left, the figure the certificate is about on the right.
  const factsTop = pdf.y;
  const boxWidth = 175;
  const factsWidth = width - boxWidth - 18;
  pdf.line('Issued to', left, pdf.y, factsWidth, { size: 8, color: COLORS.muted });
  pdf.y += 11;
  pdf.y += pdf.textAt(view.organization_name, left, pdf.y, factsWidth, { size: 13, bold: true, leading: 1.25, maxLines: 3 }) + 6;
  // The product is the title above; the rest of what and where goes here.
  pdf.keyValues(
    subjectRows(view).filter(([label]) => label !== PRODUCT_LABEL),
    left,
    factsWidth,
    112,
  );
  const factsBottom = pdf.y;

  const figure = headline(statement);
  const boxX = left + width - boxWidth;
  const inner = boxWidth - 24;
  // The avoided ADPe and PE sit beside the avoided CO2e in the box (a row of their own would push savings with swaps to page 2).
  const impacts = statementRows(statement).find(([label]) => label === IMPACTS_AVOIDED_LABEL)?.[1];
  const noteStyle = { size: 8, color: COLORS.muted };
  const impactsStyle = { size: 7.5 };
  const impactsLabel = `${IMPACTS_AVOIDED_LABEL}:`;
  const figureText = fmt.kg(figure.kg);
  const figureTop = factsTop + 24;
  const figureStyle = { size: 26, bold: true, color: COLORS.accent, leading: 1.1 };
  const unitStyle = { size: 10, bold: true };
  // The unit on the figure's baseline beside it, or below a figure too wide for both: a line of its own
  // under every figure pushed a refurbishment with its avoided ADPe and PE to page 2.
  const unitX = textWidth(figureText, figureStyle.size, true) + 6;
  const unitBeside = unitX + textWidth(UNIT, unitStyle.size, true) <= inner;
  const noteTop = unitBeside ? 56 : 72;
  const noteBottom = noteTop + pdf.heightOf(figure.note, inner, noteStyle);
  // The label on a line of its own, the figures under it: no figure broken across lines.
  const impactsLabelBottom = noteBottom + 3 + pdf.heightOf(impactsLabel, inner, impactsStyle);
  const impactsBottom = impacts ? impactsLabelBottom + pdf.heightOf(impacts, inner, impactsStyle) + 6 : 0;
  const boxHeight = Math.max(factsBottom - factsTop, 98, impactsBottom);
  pdf.decoration(() => pdf.doc.rect(boxX, factsTop, boxWidth, boxHeight).fill(COLORS.faint));
  pdf.line(figure.label, boxX + 12, factsTop + 10, inner, { size: 8.5, color: COLORS.muted });
  pdf.line(figureText, boxX + 12, figureTop, inner, figureStyle);
  if (unitBeside) {
    const unitTop = figureTop + pdf.baselineOf(figureStyle) - pdf.baselineOf(unitStyle);
    pdf.line(UNIT, boxX + 12 + unitX, unitTop, inner - unitX, unitStyle);
  } else {
    pdf.line(UNIT, boxX + 12, factsTop + 55, inner, unitStyle);
  }
  pdf.textAt(figure.note, boxX + 12, factsTop + noteTop, inner, noteStyle);
  if (impacts) {
    pdf.textAt(impactsLabel, boxX + 12, factsTop + noteBottom + 3, inner, { ...impactsStyle, color: COLORS.muted });
    pdf.textAt(impacts, boxX + 12, factsTop + impactsLabelBottom, inner, impactsStyle);
  }
  pdf.y = factsTop + boxHeight + 4;

  // The verification block's room at the foot of page 1; sections that do not fit above it start page 2.
  const verification = await verificationBlock(pdf, view);
  const reserveTop = pdf.bottom - verification.height;
  let continuedFrom: string | undefined;
  const place = (section: string, height: number) => {
    const onFirstPage = pdf.doc.bufferedPageRange().count === 1;
    if (pdf.y + height <= (onFirstPage ? reserveTop : pdf.bottom)) return;
    continuedFrom ??= section;
    pdf.newPage();
  };

  if (statement.kind === 'footprint') {
    const title = PHASES_TITLE;
    const chart = await phaseChart(statement.phases, statement.total_kg_co2e, width, 15);
    const chartHeight = chart.height * Math.min(1, width / chart.width) + 4;
    place(title, HEADING_HEIGHT + chartHeight);
    pdf.heading(title, chartHeight);
    pdf.chart(chart, 'Lifecycle phases of the product, kg CO₂e and share of the total');
  } else {
    const title = statement.kind === 'savings' ? 'Avoided emissions' : 'Refurbished instead of new';
    // The headline figure is in the box above.
    const rows = statementRows(statement).filter(([label]) => label !== figure.label && label !== IMPACTS_AVOIDED_LABEL);
    const height = pdf.keyValuesHeight(rows, width, STATEMENT_LABELS, 8.5);
    place(title, HEADING_HEIGHT + height);
    pdf.heading(title, height);
    pdf.keyValues(rows, left, width, STATEMENT_LABELS, 8.5);
  }

  const methodology = methodologyRows(view);
  const methodologyHeight = pdf.keyValuesHeight(methodology, width, 112, 8.5);
  place('Methodology', HEADING_HEIGHT + methodologyHeight);
  pdf.heading('Methodology', methodologyHeight);
  pdf.keyValues(methodology, left, width, 112, 8.5);

  dataSources(pdf, view, reserveTop, (section) => (continuedFrom ??= section));

  const pages = pdf.doc.bufferedPageRange().count;
  pdf.doc.switchToPage(0);
  pdf.y = reserveTop;
  verification.draw(
    continuedFrom === undefined
      ? 'The signed facts are the ones on this page.'
      : `The signed facts fill pages 1 to ${pages}; “${continuedFrom}” continues on page 2.`,
  );

  return pdf.finish({
    left: `${revoked ? `${revoked.toUpperCase()} · ` : ''}Certificate ${view.certificate_number} · issued ${fmt.date(view.issued_at)} · ${view.organization_name}`,
    watermark: revoked ? revoked.toUpperCase() : view.sandbox ? 'TEST — NOT A VALID CERTIFICATE' : undefined,
  });
}

/** One table row a source; consecutive undated sources with the same label (the product data lines) share a row, a bullet each. */
function sourceRows(view: CertificateView): string[][] {
  const groups: { label: string; sources: string[]; version: string | null; valid_from: string | null }[] = [];
  for (const s of view.data_sources) {
    const previous = groups.at(-1);
    const undated = s.version === null && s.valid_from === null;
    if (undated && previous?.label === s.label && previous.version === null && previous.valid_from === null)
      previous.sources.push(s.source);
    else groups.push({ ...s, sources: [s.source] });
  }
  return groups.map((g) => [
    g.label,
    g.sources.length > 1 ? g.sources.map((source) => `• ${source}`).join('\n') : g.sources[0]!,
    g.version ?? '—',
    g.valid_from ? fmt.date(g.valid_from) : '—',
  ]);
}

const SOURCE_COLUMNS = (width: number): Column[] => [
  { header: 'Used for', width: width * 0.2, wrap: true },
  { header: 'Source', width: width * 0.5, wrap: true },
  { header: 'Version', width: width * 0.18, wrap: true },
  { header: 'Valid from', width: width * 0.12 },
];

/** The data sources table: the rows that fit above the verification block on page 1, the rest on page 2 under a repeated heading. */
function dataSources(pdf: PdfWriter, view: CertificateView, reserveTop: number, continued: (section: string) => void): void {
  const title = 'Data sources';
  if (view.data_sources.length === 0) {
    pdf.heading(title, 20);
    pdf.paragraph('No external data source: built-in defaults of the methodology.', { size: 9 });
    return;
  }
  const columns = SOURCE_COLUMNS(pdf.width);
  const rows = sourceRows(view);
  const step = pdf.lineHeight({ size: TABLE_SIZE });
  const heights = rows.map(
    (row) => Math.max(...columns.map((c, i) => (c.wrap ? pdf.wrap(row[i]!, c.width - 8, { size: TABLE_SIZE }).length : 1))) * step + 4,
  );
  const tableTop = HEADING_HEIGHT + step + 2;
  const firstPage = pdf.doc.bufferedPageRange().count === 1;
  let fitting = rows.length;
  if (firstPage) {
    let y = pdf.y + tableTop;
    fitting = heights.findIndex((h) => (y += h) > reserveTop);
    if (fitting === -1) fitting = rows.length;
  }
  // A heading never stands alone at the foot of page 1.
  if (fitting === 0) {
    continued(title);
    pdf.newPage();
    fitting = rows.length;
  }
  pdf.heading(title, 20);
  pdf.table(columns, rows.slice(0, fitting), TABLE_SIZE);
  if (fitting === rows.length) return;
  continued(title);
  pdf.newPage();
  pdf.heading(`${title} (continued)`, 20);
  pdf.table(columns, rows.slice(fitting), TABLE_SIZE);
}

const SCAN = 'Scan the code or open the address to check the issuer’s signature and whether this certificate is still valid.';

/** The QR code of verify_url, the key id and the fingerprint: measured now, drawn last (with the sentence saying where the signed facts are). */
async function verificationBlock(pdf: PdfWriter, view: CertificateView) {
  const qr = await QRCode.toString(view.verify_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 0 });
  const textX = pdf.left + QR_SIZE + 18;
  const textWidth = pdf.width - QR_SIZE - 18;
  const rows: Row[] = [
    ['Verify at', view.verify_url],
    ['Signing key id', view.key_id],
    ['Fingerprint (SHA-256)', fmt.fingerprint(view.signature_fingerprint)],
  ];
  const note = { size: 8, color: COLORS.muted };
  // The longest sentence it can end with.
  const longest = `${SCAN} The signed facts fill pages 1 to 9; “${PHASES_TITLE}” continues on page 2.`;
  const textHeight = pdf.keyValuesHeight(rows, textWidth, VERIFY_LABELS, 8) + 4 + pdf.heightOf(longest, textWidth, note);
  return {
    height: HEADING_HEIGHT + Math.max(QR_SIZE, textHeight) + 4,
    draw(where: string) {
      pdf.heading('Verification', 0);
      const qrTop = pdf.y + 2;
      pdf.link(view.verify_url, pdf.left, qrTop, QR_SIZE, QR_SIZE, () =>
        pdf.svg(qr, pdf.left, qrTop, QR_SIZE, QR_SIZE, `QR code of the address that verifies this certificate: ${view.verify_url}`),
      );
      pdf.y = qrTop;
      pdf.keyValues(rows, textX, textWidth, VERIFY_LABELS, 8);
      pdf.y += 4;
      pdf.textAt(`${SCAN} ${where}`, textX, pdf.y, textWidth, note);
    },
  };
}
