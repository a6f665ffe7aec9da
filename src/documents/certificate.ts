import QRCode from 'qrcode';
import * as fmt from './format.ts';
import { COLORS, PdfWriter } from './pdf.ts';
import { phaseChart } from './phases.ts';
import type { CertificateView } from './views.ts';

const SANDBOX_CERTIFICATE = 'TEST — sandbox data, not a valid certificate';

export async function certificatePdf(view: CertificateView): Promise<Buffer> {
  const pdf = new PdfWriter({
    title: `CO₂ impact certificate ${view.certificate_number}`,
    subject: `Lifecycle carbon footprint of ${fmt.productName(view.product.brand, view.product.name)}`,
    author: view.organization_name,
    createdAt: view.issued_at,
  });
  const { left, width } = pdf;

  if (view.sandbox) {
    pdf.notice(
      SANDBOX_CERTIFICATE,
      'Issued with a test key (svc_test_) from the organisation’s sandbox. The figures are example data; its signature checks out, and its verification page says it is a sandbox certificate.',
      COLORS.warning,
      COLORS.warningFaint,
    );
  }

  // Header: what this is on the left, which certificate on the right.
  const top = pdf.y;
  const idWidth = 165;
  pdf.line('CO₂ IMPACT CERTIFICATE', left, top, width - idWidth, { size: 9, bold: true, color: COLORS.accent });
  const product = fmt.productName(view.product.brand, view.product.name);
  const titleHeight = pdf.title(product, left, top + 15, width - idWidth - 10, { size: 19, bold: true, leading: 1.2, maxLines: 3 });
  pdf.line('Lifecycle carbon footprint of one product', left, top + 19 + titleHeight, width - idWidth, { size: 9.5, color: COLORS.muted });
  const idX = left + width - idWidth;
  pdf.line('Certificate number', idX, top, idWidth, { size: 8, color: COLORS.muted, align: 'right' });
  pdf.line(view.certificate_number, idX, top + 11, idWidth, { size: 11, bold: true, align: 'right' });
  pdf.line('Issued', idX, top + 30, idWidth, { size: 8, color: COLORS.muted, align: 'right' });
  pdf.line(fmt.dateTime(view.issued_at), idX, top + 41, idWidth, { size: 9, align: 'right' });
  pdf.y = Math.max(top + 60, top + 36 + titleHeight);
  pdf.rule(COLORS.muted, 0.8);
  pdf.space(14);

  // Who and what on the left, the total on the right.
  const factsTop = pdf.y;
  const totalWidth = 175;
  const factsWidth = width - totalWidth - 18;
  pdf.line('Issued to', left, pdf.y, factsWidth, { size: 8, color: COLORS.muted });
  pdf.y += 11;
  pdf.y += pdf.textAt(view.organization_name, left, pdf.y, factsWidth, { size: 13, bold: true, leading: 1.25, maxLines: 3 }) + 6;
  pdf.keyValues(
    [
      ['Product', product],
      ['Model number (MPN)', view.product.mpn ?? 'not given'],
      ['Category', view.product.category],
      ['Country of use', view.country],
    ],
    left,
    factsWidth,
    105,
  );
  const factsBottom = pdf.y;

  const boxX = left + width - totalWidth;
  const low = view.total_kg_co2e * (1 - view.methodology.uncertainty_pct / 100);
  const high = view.total_kg_co2e * (1 + view.methodology.uncertainty_pct / 100);
  const boxHeight = Math.max(factsBottom - factsTop, 98);
  pdf.decoration(() => pdf.doc.rect(boxX, factsTop, totalWidth, boxHeight).fill(COLORS.faint));
  pdf.line('Lifecycle total', boxX + 12, factsTop + 10, totalWidth - 24, { size: 8.5, color: COLORS.muted });
  pdf.line(fmt.kg(view.total_kg_co2e), boxX + 12, factsTop + 24, totalWidth - 24, { size: 26, bold: true, color: COLORS.accent, leading: 1.1 });
  pdf.line('kg CO₂e', boxX + 12, factsTop + 55, totalWidth - 24, { size: 10, bold: true });
  pdf.textAt(`± ${fmt.pct(view.methodology.uncertainty_pct)}: ${fmt.kg(low)} to ${fmt.kg(high)} kg`, boxX + 12, factsTop + 72, totalWidth - 24, {
    size: 8,
    color: COLORS.muted,
  });
  pdf.y = factsTop + boxHeight + 4;

  pdf.heading('Lifecycle phases (kg CO₂e and share of the total)', 90);
  pdf.chart(await phaseChart(view.phases, view.total_kg_co2e, width), 'Lifecycle phases of the product, kg CO₂e and share of the total');

  pdf.heading('Methodology', 70);
  pdf.keyValues([
    ['Standard', view.methodology.standard],
    ['Calculation engine', view.methodology.engine_version],
    ['Confidence', view.methodology.confidence],
    ['Uncertainty', `± ${fmt.pct(view.methodology.uncertainty_pct)} of the total`],
  ]);

  pdf.heading('Data sources', 60);
  if (view.data_sources.length === 0) pdf.paragraph('No external data source: built-in defaults of the methodology.', { size: 9 });
  else
    pdf.table(
      [
        { header: 'Used for', width: width * 0.3, wrap: true },
        { header: 'Source', width: width * 0.36, wrap: true },
        { header: 'Version', width: width * 0.18, wrap: true },
        { header: 'Valid from', width: width * 0.16 },
      ],
      view.data_sources.map((s) => [s.label, s.source, s.version ?? '—', s.valid_from ? fmt.date(s.valid_from) : '—']),
    );

  pdf.heading('Verification', 120);
  const qrSize = 90;
  const qrTop = pdf.y + 2;
  const qr = await QRCode.toString(view.verify_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 0 });
  pdf.link(view.verify_url, left, qrTop, qrSize, qrSize, () =>
    pdf.svg(qr, left, qrTop, qrSize, qrSize, `QR code of the address that verifies this certificate: ${view.verify_url}`),
  );
  const textX = left + qrSize + 18;
  pdf.y = qrTop;
  pdf.keyValues(
    [
      ['Verify at', view.verify_url],
      ['Signing key id', view.key_id],
      ['Signature fingerprint (SHA-256)', fmt.fingerprint(view.signature_fingerprint)],
    ],
    textX,
    width - qrSize - 18,
    100,
    8.5,
  );
  pdf.y += 4;
  pdf.y += pdf.textAt(
    'Scan the code or open the address to check this certificate against the issuer’s signature and see whether it is still valid. ' +
      'The signed facts are the ones on this page.',
    textX,
    pdf.y,
    width - qrSize - 18,
    { size: 8, color: COLORS.muted },
  );
  pdf.y = Math.max(pdf.y, qrTop + qrSize);

  return pdf.finish({
    left: `Certificate ${view.certificate_number} · issued ${fmt.date(view.issued_at)} · ${view.organization_name}`,
    watermark: view.sandbox ? 'TEST — NOT A VALID CERTIFICATE' : undefined,
  });
}
