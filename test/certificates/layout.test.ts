import { afterAll, describe, expect, it } from 'vitest';
import {
  certificateView,
  longNameCertificateView,
  manySourcesCertificateView,
  refurbishmentCertificateView,
  revokedCertificateView,
  savingsCertificateView,
} from '../../src/documents/fixtures.ts';
import { closeDocumentRenderer, renderCertificatePdf } from '../../src/documents/index.ts';
import * as fmt from '../../src/documents/format.ts';
import { pageCount, pdfText, qrCodes } from './support-pdf.ts';

// The page a customer holds: one A4 page for the usual certificate, the verification block (QR code,
// key id, fingerprint) always on page 1, and a true sentence about where the signed facts are.

afterAll(() => closeDocumentRenderer());

const ONE_PAGE = 'The signed facts are the ones on this page.';

describe('certificate layout', () => {
  it.each([
    ['footprint', certificateView],
    ['savings', savingsCertificateView],
    ['refurbishment', refurbishmentCertificateView],
    ['revoked footprint', revokedCertificateView],
    ['footprint with a 200-character product name and six long data sources', longNameCertificateView],
  ])('a %s certificate is one page with the verification block on it', async (_kind, view) => {
    const pdf = await renderCertificatePdf(view);
    expect(await pageCount(pdf)).toBe(1);
    const text = await pdfText(pdf);
    expect(text).toContain(ONE_PAGE);
    expect(text).toContain(`Signing key id ${view.key_id}`);
    expect(text).toContain(fmt.fingerprint(view.signature_fingerprint));
    expect(await qrCodes(pdf, 1)).toEqual([view.verify_url]);
  });

  it('prints a 200-character product name in full', async () => {
    const name = fmt.productName(longNameCertificateView.product.brand, longNameCertificateView.product.name);
    expect(name).toHaveLength(200);
    expect(await pdfText(await renderCertificatePdf(longNameCertificateView))).toContain(name);
  });

  it('continues a longer list of sources on page 2, keeping the verification block on page 1, and says so', async () => {
    const pdf = await renderCertificatePdf(manySourcesCertificateView);
    expect(await pageCount(pdf)).toBe(2);
    const [first, second] = [await pdfText(pdf, 1), await pdfText(pdf, 2)];
    expect(first).toContain('Verification');
    expect(first).toContain('The signed facts fill pages 1 to 2; “Data sources” continues on page 2.');
    expect(first).not.toContain(ONE_PAGE);
    expect(await qrCodes(pdf, 1)).toEqual([manySourcesCertificateView.verify_url]);
    expect(await qrCodes(pdf, 2)).toEqual([]);
    // Page 2 holds what the sentence says: the rest of the data sources, and every one is printed once.
    expect(second.trimStart()).toMatch(/^Data sources \(continued\) Used for Source Version Valid from /);
    for (const source of manySourcesCertificateView.data_sources) expect(`${first}${second}`.split(source.label).length).toBe(2);
  });

  it('marks every page of a revoked certificate', async () => {
    const pdf = await renderCertificatePdf({ ...manySourcesCertificateView, revoked_at: '2025-06-02T11:04:00.000Z' });
    expect(await pageCount(pdf)).toBe(2);
    for (const page of [1, 2]) expect(await pdfText(pdf, page)).toContain('REVOKED ON 2 JUNE 2025');
    expect(await pdfText(pdf, 1)).toContain('Revoked on 2 June 2025: do not rely on this certificate');
  });
});
