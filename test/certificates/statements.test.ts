import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { uncertaintyInterval } from '../../src/footprint/engine/interval.ts';
import { canonicalBytes, sha256Hex } from '../../src/certificates/payload.ts';
import * as fmt from '../../src/documents/format.ts';
import { alterStoredTotal, bearer, issue, revoke } from './support.ts';
import { numbersIn, pageCount, pdfText } from './support-pdf.ts';

// Each kind of calculation certified through the API: every figure the PDF prints is one the API
// answered for that calculation, and every data source it lists is one a printed figure used.

let t: TestApp;
let key: string;
let orgId: string;

beforeAll(async () => {
  t = await createTestApp();
  orgId = (await t.createOrg('pro', 'Refurb & Co GmbH')).id;
  key = (await t.createKey(orgId)).key;
});
afterAll(() => t.close());

const DEVICE = { brand: 'Dell', model: 'Latitude 5400' };

async function calculate(kind: 'footprint' | 'savings' | 'refurbishment', params: Record<string, string | number>) {
  const res = await t.json(`/v1/${kind}?${qs({ ...DEVICE, ...params })}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  expect(res.body.calculation_id).toEqual(expect.any(String));
  return res.body;
}

async function download(id: string) {
  return t.request(`/v1/certificate?id=${id}`, { headers: bearer(key) });
}

async function certify(calculationId: string) {
  const cert = (await issue(t, key, calculationId)).body;
  const res = await download(cert.id);
  expect(res.status).toBe(200);
  const pdf = Buffer.from(await res.arrayBuffer());
  return { cert, pdf, text: await pdfText(pdf), pages: await pageCount(pdf) };
}

let ip = 0;
const verifyPage = async (url: string) => {
  const res = await t.request(new URL(url).pathname, { ip: `10.35.0.${++ip}` });
  // The table as text: tags dropped, entities of the escaped values read back, spaces collapsed.
  return (await res.text())
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/\s+/g, ' ');
};
const verifyJson = async (url: string) =>
  (await t.json(new URL(url).pathname, { headers: { accept: 'application/json' }, ip: `10.35.1.${++ip}` })).body;

/**
 * The numbers printed from "Issued to" to "Data sources" (subject, statement, methodology), after
 * removing the texts that are names rather than figures (MPN, standard, engine version, swap tokens).
 */
function printedFigures(text: string, names: string[]): string[] {
  let region = text.slice(text.indexOf('Issued to'), text.indexOf('Data sources'));
  for (const name of names) region = region.split(name).join(' ');
  return numbersIn(region);
}

const kgText = (v: number) => fmt.kg(v);
const pctText = (v: number) => fmt.pct(v).replace(' %', '');
const factor = (u: number) => String(1 + u / 100);

describe(`certificate statements on ${TEST_DATABASE_KIND}`, () => {
  it('a footprint certificate states the footprint: phases, total, interval, years of use; one page', async () => {
    const api = await calculate('footprint', { country: 'FR' });
    const { cert, text, pages } = await certify(api.calculation_id);
    expect(pages).toBe(1);
    const u = api.methodology.uncertainty_pct;
    const interval = uncertaintyInterval(api.total_kg_co2e, u);
    const phases = [api.breakdown.production_kg, api.breakdown.transport_kg, api.breakdown.use_phase_kg, api.breakdown.end_of_life_kg];
    const expected = [
      kgText(api.total_kg_co2e),
      ...phases.map(kgText),
      ...phases.map((kg) => pctText((kg / api.total_kg_co2e) * 100)),
      kgText(interval.low_kg),
      kgText(interval.high_kg),
      pctText(u),
      factor(u),
      String(api.methodology.lifetime_years),
    ];
    const printed = printedFigures(text, [api.product.mpn, api.methodology.standard, api.methodology.engine_version]);
    expect(new Set(printed)).toEqual(new Set(expected));
    expect(text).toContain(`${kgText(api.total_kg_co2e)} kg CO₂e range ${kgText(interval.low_kg)} to ${kgText(interval.high_kg)} kg`);
    expect(text).toContain(`Years of use ${api.methodology.lifetime_years} years`);
    expect(text).toContain('Country of use FR');
    expect(text).toContain(
      `${kgText(api.breakdown.production_kg)} kg · ${fmt.pct((api.breakdown.production_kg / api.total_kg_co2e) * 100)}`,
    );

    // Sources: the product data the engine used and the grid of the country of use, nothing else.
    const { payload } = await verifyJson(cert.verify_url);
    const productSources = api.methodology.data_sources.filter((s: string) => !s.startsWith('grid factor '));
    expect(payload.data_sources.map((s: { source: string }) => s.source)).toEqual([...productSources, expect.stringContaining('zone FR')]);
    expect(payload.data_sources.at(-1).label).toBe(
      `Grid factor, country of use (FR): ${api.methodology.grid_factor_kg_per_kwh} kg CO2e/kWh`,
    );
    expect(text).toContain(`Grid factor, country of use (FR): ${api.methodology.grid_factor_kg_per_kwh} kg CO2e/kWh`);

    // The verification page states the same figures.
    const page = await verifyPage(cert.verify_url);
    for (const figure of [
      `Lifecycle total ${kgText(api.total_kg_co2e)} kg CO₂e`,
      `Production ${kgText(api.breakdown.production_kg)} kg CO₂e`,
      `${kgText(interval.low_kg)} to ${kgText(interval.high_kg)} kg`,
    ]) {
      expect(page).toContain(figure);
    }
  });

  it('a savings certificate states the avoided emissions, remaining years, country and equivalents, not the new device’s lifecycle', async () => {
    const api = await calculate('savings', { country: 'FR', remaining_years: 3 });
    const { cert, text, pages } = await certify(api.calculation_id);
    expect(pages).toBe(1);
    const u = api.methodology.uncertainty_pct;
    const expected = [
      kgText(api.avoided_co2_kg),
      '3',
      kgText(api.avoided_production_kg),
      kgText(api.avoided_transport_kg),
      kgText(api.additional_use_phase_kg),
      fmt.count(api.equivalents.km_driving_avoided),
      kgText(api.equivalents.trees_year_equivalent),
      pctText(u),
      fmt.significant(api.impacts.adpe.total),
      fmt.significant(api.impacts.pe.total),
    ];
    const printed = printedFigures(text, [api.product.mpn, api.methodology.standard, api.methodology.engine_version]);
    expect(new Set(printed)).toEqual(new Set(expected));
    // The avoided ADPe and PE are the answer's impacts totals, of which GWP is the avoided CO2e.
    expect(api.impacts.gwp.total).toBeCloseTo(api.avoided_co2_kg, 2);
    expect(text).toContain(
      `Metals and energy avoided: ${fmt.significant(api.impacts.adpe.total)} kg Sb eq ADPe · ${fmt.significant(api.impacts.pe.total)} MJ PE`,
    );
    expect(text).toContain(`Avoided emissions ${kgText(api.avoided_co2_kg)} kg CO₂e over 3 years of further use`);
    expect(text).toContain('Country of use FR');
    expect(text).toContain(`${fmt.count(api.equivalents.km_driving_avoided)} km by an average car`);
    expect(text).not.toContain('Lifecycle total');

    const { payload } = await verifyJson(cert.verify_url);
    expect(payload.statement).toEqual({
      kind: 'savings',
      remaining_life_years: 3,
      avoided_co2_kg: api.avoided_co2_kg,
      avoided_production_kg: api.avoided_production_kg,
      avoided_transport_kg: api.avoided_transport_kg,
      additional_use_phase_kg: api.additional_use_phase_kg,
      km_driving_avoided: api.equivalents.km_driving_avoided,
      trees_year_equivalent: api.equivalents.trees_year_equivalent,
      avoided_impacts: { adpe_kg_sb_eq: api.impacts.adpe.total, pe_mj: api.impacts.pe.total },
    });
    // The extra electricity is at the grid of the country of use; the equivalents divide by their factors.
    expect(payload.data_sources.map((s: { label: string }) => s.label).slice(-3)).toEqual([
      `Grid factor, country of use (FR): ${api.methodology.grid_factor_kg_per_kwh} kg CO2e/kWh`,
      'Driving equivalent: 0.17 kg CO2e/km',
      'Tree equivalent: 21.77 kg CO2e/year',
    ]);
    const page = await verifyPage(cert.verify_url);
    expect(page).toContain(`Avoided emissions ${kgText(api.avoided_co2_kg)} kg CO₂e`);
    expect(page).toContain(`${fmt.count(api.equivalents.km_driving_avoided)} km by an average car`);
    expect(page).toContain(`${fmt.significant(api.impacts.adpe.total)} kg Sb eq ADPe · ${fmt.significant(api.impacts.pe.total)} MJ PE`);
  });

  it('a refurbishment certificate states grade, reuse country and its grid, swaps, net savings and break-even; cites the reuse grid, not the unused one', async () => {
    const api = await calculate('refurbishment', {
      country: 'FR',
      grade: 'B',
      reuse_country: 'US-TX',
      swaps: 'battery:56,storage:512:nvme',
      remaining_years: 2,
    });
    const { cert, text, pages } = await certify(api.calculation_id);
    // Two swaps and the avoided ADPe and PE in the box still make one page, the verification block on it.
    expect(pages).toBe(1);
    expect(text).toContain('The signed facts are the ones on this page.');
    const grid = api.adjusted_use_phase.reuse_grid_factor_kg_per_kwh;
    const expected = [
      kgText(api.net_savings_kg),
      pctText(api.net_savings_pct),
      '2',
      kgText(grid).length > 0 ? new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 3 }).format(grid) : '',
      kgText(api.gross_avoided_kg),
      kgText(api.overhead.total_kg),
      kgText(api.swaps_total_kg),
      ...api.swaps.map((s: { production_kg: number }) => kgText(s.production_kg)),
      kgText(api.adjusted_use_phase.additional_use_phase_kg),
      String(api.break_even_years),
      fmt.count(api.equivalents.km_driving_avoided),
      kgText(api.equivalents.trees_year_equivalent),
      pctText(api.methodology.uncertainty_pct),
      fmt.significant(api.impacts.adpe.total),
      fmt.significant(api.impacts.pe.total),
    ];
    const tokens = api.swaps.map((s: { token: string }) => s.token);
    const printed = printedFigures(text, [api.product.mpn, api.methodology.standard, api.methodology.engine_version, ...tokens]);
    expect(new Set(printed)).toEqual(new Set(expected));
    expect(text).toContain('Grade B (Good)');
    expect(text).toContain(
      `Country of reuse US-TX, grid ${new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 3 }).format(grid)} kg CO₂e/kWh`,
    );
    expect(text).toContain(`Net savings ${kgText(api.net_savings_kg)}`);
    expect(text).toContain(`${fmt.pct(api.net_savings_pct)} of a new device’s production and transport`);
    expect(text).toContain(`after ${api.break_even_years} years of use`);
    for (const s of api.swaps) expect(text).toContain(`${s.token} ${kgText(s.production_kg)} kg`);
    // Net of the same costs as the CO2e: the impacts' GWP total is the net savings.
    expect(api.impacts.gwp.total).toBeCloseTo(api.net_savings_kg, 2);
    expect(text).toContain(
      `Metals and energy avoided: ${fmt.significant(api.impacts.adpe.total)} kg Sb eq ADPe · ${fmt.significant(api.impacts.pe.total)} MJ PE`,
    );

    const { payload } = await verifyJson(cert.verify_url);
    expect(payload.statement.avoided_impacts).toEqual({ adpe_kg_sb_eq: api.impacts.adpe.total, pe_mj: api.impacts.pe.total });
    const labels = payload.data_sources.map((s: { label: string }) => s.label);
    expect(labels).toContain(`Grid factor, country of reuse (US-TX): ${grid} kg CO2e/kWh`);
    // France's grid feeds only the new device's use phase, which a refurbishment does not state.
    expect(labels.filter((l: string) => l.startsWith('Grid factor'))).toHaveLength(1);
    expect(text).not.toContain('(FR): ');
    const page = await verifyPage(cert.verify_url);
    expect(page).toContain(`Net savings ${kgText(api.net_savings_kg)} kg CO₂e (${fmt.pct(api.net_savings_pct)})`);
    expect(page).toContain('Country of reuse US-TX');
  });

  it('a refurbishment that emits more than it avoids has no break-even: null in the API and the payload, "never" on the PDF', async () => {
    const api = await calculate('refurbishment', {
      country: 'FR',
      grade: 'A',
      swaps: 'display:17:mini_led,display:17:mini_led,display:17:mini_led,storage:20000:ssd',
    });
    expect(api.net_savings_kg).toBeLessThan(0);
    expect(api.break_even_years).toBeNull();
    const { cert, text } = await certify(api.calculation_id);
    expect(text).toContain('never: refurbishing emits more than it avoids');
    const { payload } = await verifyJson(cert.verify_url);
    expect(payload.statement.break_even_years).toBeNull();
    expect(payload.statement.net_savings_kg).toBe(api.net_savings_kg);
  });

  it('prints an interval of ±110 % with a positive low bound, and the method', async () => {
    const api = await calculate('footprint', { country: 'DE' });
    // A category-default estimate can be ±110 %: the stored answer says so before the certificate is issued.
    const calc = await t.app.services.db.prisma.calculation.findUniqueOrThrow({ where: { id: api.calculation_id } });
    const result = calc.result as { methodology: { uncertainty_pct: number } };
    result.methodology.uncertainty_pct = 110;
    await t.app.services.db.prisma.calculation.update({ where: { id: calc.id }, data: { result } });
    const { text } = await certify(api.calculation_id);
    const [low, high] = /± 110\.0 %: ([\d,.]+) to ([\d,.]+) kg \(total ÷ 2\.1 to total × 2\.1; never below zero\)/
      .exec(text)!
      .slice(1)
      .map((n) => Number(n.replace(/,/g, '')));
    // Printed to 0.1 kg from bounds rounded to 0.01 kg.
    expect(Math.abs(low! - api.total_kg_co2e / 2.1)).toBeLessThanOrEqual(0.06);
    expect(Math.abs(high! - api.total_kg_co2e * 2.1)).toBeLessThanOrEqual(0.06);
    expect(text).toContain(`range ${fmt.kg(low!)} to ${fmt.kg(high!)} kg`);
    expect(low).toBeGreaterThan(0);
  });

  it('marks a revoked certificate on every page and says the same as its verification page', async () => {
    const api = await calculate('footprint', { country: 'DE' });
    const { cert, pdf: before } = await certify(api.calculation_id);
    const revoked = (await revoke(t, key, cert.id)).body;
    const pdf = Buffer.from(await (await download(cert.id)).arrayBuffer());
    expect(pdf.equals(before)).toBe(false);
    const pages = await pageCount(pdf);
    for (let page = 1; page <= pages; page++) {
      expect(await pdfText(pdf, page)).toContain(`REVOKED ON ${fmt.date(revoked.revoked_at).toUpperCase()}`);
    }
    const text = await pdfText(pdf);
    const sentence = `The issuing organisation revoked this certificate on ${fmt.dateTime(revoked.revoked_at)}. The facts below were signed when it was issued and are no longer vouched for.`;
    expect(text).toContain(`Revoked on ${fmt.date(revoked.revoked_at)}: do not rely on this certificate`);
    expect(text).toContain(sentence);
    expect(await verifyPage(cert.verify_url)).toContain(sentence);
  });

  it('refuses to serve an altered certificate as a document (409 CERTIFICATE_ALTERED), audit-logged; the page says altered', async () => {
    const api = await calculate('footprint', { country: 'DE' });
    const { cert } = await certify(api.calculation_id);
    await alterStoredTotal(t, cert.id);
    const res = await t.json(`/v1/certificate?id=${cert.id}`, { headers: bearer(key) });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      code: 'CERTIFICATE_ALTERED',
      details: expect.stringMatching(/^id: the stored facts of certificate LCF-\w+ no longer match their signature; do not rely on them/),
    });
    const audit = await t.app.services.db.prisma.auditLog.findMany({
      where: { subject_id: cert.id, event: 'certificate.altered_refused' },
    });
    expect(audit).toEqual([
      expect.objectContaining({
        org_id: orgId,
        subject_type: 'certificate',
        data: { certificate_number: cert.certificate_number, calculation_id: api.calculation_id },
      }),
    ]);
    expect((await verifyJson(cert.verify_url)).verdict).toBe('altered');
    expect(await verifyPage(cert.verify_url)).toContain('no longer match their signature');
  });

  it('a calculation stored before impacts existed: the certificate says ADPe and PE were not computed and invents none', async () => {
    const api = await calculate('savings', { country: 'DE', remaining_years: 4 });
    const prisma = t.app.services.db.prisma;
    const calc = await prisma.calculation.findUniqueOrThrow({ where: { id: api.calculation_id } });
    const { impacts: _dropped, ...before } = calc.result as Record<string, unknown>;
    await prisma.calculation.update({ where: { id: calc.id }, data: { result: before as object } });
    const { cert, text } = await certify(api.calculation_id);
    expect(text).toContain('Metals and energy avoided: not computed (calculated before ADPe and PE were)');
    expect(text).not.toContain('kg Sb eq');
    expect(text).toContain(`Avoided emissions ${kgText(api.avoided_co2_kg)} kg CO₂e`);
    const verified = await verifyJson(cert.verify_url);
    expect(verified.verdict).toBe('valid');
    expect(verified.payload.statement.avoided_impacts).toBeNull();
  });

  it('still verifies and renders a format-2 savings certificate issued before ADPe and PE were certified, without them', async () => {
    const api = await calculate('savings', { country: 'DE', remaining_years: 5 });
    const { cert } = await certify(api.calculation_id);
    const prisma = t.app.services.db.prisma;
    const keys = t.app.services.certificateKeys;
    // The payload as issued then: no avoided_impacts key, signed as it is.
    const stored = await prisma.certificate.findUniqueOrThrow({ where: { id: cert.id } });
    const payload = structuredClone(stored.payload) as { statement: Record<string, unknown> };
    delete payload.statement.avoided_impacts;
    const bytes = canonicalBytes(payload);
    await prisma.certificate.update({
      where: { id: cert.id },
      data: { payload: payload as object, content_sha256: sha256Hex(bytes), signature: keys.sign(bytes), key_id: keys.signingKid },
    });
    const verified = await verifyJson(cert.verify_url);
    expect(verified).toMatchObject({ verdict: 'valid', payload });
    const text = await pdfText(Buffer.from(await (await download(cert.id)).arrayBuffer()));
    expect(text).toContain(`Avoided emissions ${kgText(api.avoided_co2_kg)} kg CO₂e`);
    expect(text).not.toContain('Metals and energy avoided');
  });

  it('still verifies and renders a certificate issued in format 1 (the footprint at the top level)', async () => {
    // A calculation of its own: the same inputs are one stored calculation (content-addressed), which may carry one certificate.
    const api = await calculate('footprint', { country: 'DE', ram_gb: 12 });
    const prisma = t.app.services.db.prisma;
    const keys = t.app.services.certificateKeys;
    const number = 'LCF-F0RMAT1OLD';
    const payload = {
      format: 'lcf-certificate/1',
      certificate_number: number,
      issued_at: '2026-01-15T10:00:00.000Z',
      calculation_id: api.calculation_id,
      organization_name: 'Refurb & Co GmbH',
      product: { brand: api.product.brand, name: api.product.name, mpn: api.product.mpn, category: api.product.category },
      country: 'DE',
      phases: api.breakdown,
      total_kg_co2e: api.total_kg_co2e,
      methodology: {
        standard: api.methodology.standard,
        engine_version: api.methodology.engine_version,
        confidence: api.methodology.confidence,
        uncertainty_pct: api.methodology.uncertainty_pct,
      },
      data_sources: [
        { label: 'Product data', source: 'built-in catalogue: Dell Latitude 5400 (by model name)', version: null, valid_from: null },
      ],
      sandbox: false,
    };
    const bytes = canonicalBytes(payload);
    const id = randomUUID();
    await prisma.certificate.create({
      data: {
        id,
        org_id: orgId,
        calculation_id: api.calculation_id,
        certificate_number: number,
        issued_at: new Date(payload.issued_at),
        content_sha256: sha256Hex(bytes),
        payload,
        signature: keys.sign(bytes),
        key_id: keys.signingKid,
      },
    });
    const verified = await verifyJson(`http://localhost/verify/${number}`);
    expect(verified).toMatchObject({ verdict: 'valid', payload });
    const res = await download(id);
    expect(res.status).toBe(200);
    const text = await pdfText(Buffer.from(await res.arrayBuffer()));
    const interval = uncertaintyInterval(api.total_kg_co2e, api.methodology.uncertainty_pct);
    expect(text).toContain(`${kgText(api.total_kg_co2e)} kg CO₂e range ${kgText(interval.low_kg)} to ${kgText(interval.high_kg)} kg`);
    expect(text).toContain(number);
    expect(await verifyPage(`http://localhost/verify/${number}`)).toContain(`Lifecycle total ${kgText(api.total_kg_co2e)} kg CO₂e`);
  });
});
