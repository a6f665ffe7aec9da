import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, qs, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { OLD_DEVICE_ENERGY_PENALTY } from '../../src/footprint/engine/constants.ts';

let t: TestApp;
let orgKey: string;
beforeAll(async () => {
  t = await createTestApp();
  const org = await t.createOrg('enterprise', 'Impacts Org');
  orgKey = (await t.createKey(org.id)).key;
});
afterAll(() => t.close());

// ADEME Base IMPACTS 2011 via BoaviztAPI (data/impact-factors/boavizta-electricity.json)
const ADPE_PER_KWH = { DE: 8.78733e-8, FR: 4.85798e-8 } as const;
const PE_PER_KWH = { DE: 16.26, FR: 11.289 } as const;
/** Figures rounded to 4 significant digits: equal within 1 part in 1000. */
const expectNear = (actual: number, expected: number) => expect(actual / expected).toBeCloseTo(1, 3);

const laptop = {
  brand: 'Acme',
  model: 'Notebook 14',
  category: 'laptop',
  weight_kg: 1.4,
  tdp: 15,
  ram_gb: 16,
  storage_gb: 512,
  storage_type: 'nvme',
  screen_size_inch: 14,
  screen_type: 'ips',
  battery_wh: 54,
};

const sumPhases = (p: { production: number; transport: number; use: number; end_of_life: number }) =>
  p.production + p.transport + p.use + p.end_of_life;

describe(`impacts beyond carbon over REST and GraphQL on ${TEST_DATABASE_KIND}`, () => {
  it('GET /v1/footprint: gwp is the breakdown; ADPe and PE per phase, use = kWh x lifetime x the country factor', async () => {
    const res = await t.json(`/v1/footprint?${qs({ ...laptop, country: 'DE' })}`);
    expect(res.status).toBe(200);
    const b = res.body;
    const i = b.impacts;
    expect(Object.keys(i).sort()).toEqual(['adpe', 'electricity', 'gwp', 'pe']);
    expect(i.gwp).toMatchObject({
      unit: 'kg CO2e',
      total: b.total_kg_co2e,
      uncertainty_pct: b.methodology.uncertainty_pct,
      confidence: b.methodology.confidence,
      phases: {
        production: b.breakdown.production_kg,
        transport: b.breakdown.transport_kg,
        use: b.breakdown.use_phase_kg,
        end_of_life: b.breakdown.end_of_life_kg,
      },
    });
    expect(i.electricity).toMatchObject({ region_code: 'DE', adpe_kg_sb_eq_per_kwh: ADPE_PER_KWH.DE, pe_mj_per_kwh: PE_PER_KWH.DE });
    const kwh = b.methodology.annual_kwh * b.methodology.lifetime_years;
    expect(i.adpe.unit).toBe('kg Sb eq');
    expect(i.pe.unit).toBe('MJ');
    expectNear(i.adpe.phases.use, kwh * ADPE_PER_KWH.DE);
    expectNear(i.pe.phases.use, kwh * PE_PER_KWH.DE);
    // end of life: 1.4 kg x BoaviztAPI's per-kg factors
    expectNear(i.adpe.phases.end_of_life, 1.4 * 3.714e-6);
    expectNear(i.pe.phases.end_of_life, 1.4 * 22.348);
    // battery PE: 54 Wh x 280 kWh primary energy per kWh x 3.6 MJ/kWh; no sourced ADPe for it (a stated gap)
    expectNear(i.pe.production_components.battery, 54 * 0.28 * 3.6);
    expect(i.adpe.production_components.battery).toBe(0);
    expect(i.adpe.notes).toContain('battery: no sourced ADPe factor; battery production not counted (gap)');
    for (const c of ['adpe', 'pe'] as const) {
      expectNear(i[c].total, sumPhases(i[c].phases));
      for (const v of Object.values(i[c].phases) as number[]) expect(v).toBeGreaterThan(0);
      const f = 1 + i[c].uncertainty_pct / 100;
      expectNear(i[c].interval.low, i[c].total / f);
      expectNear(i[c].interval.high, i[c].total * f);
      expect(i[c].uncertainty_pct).toBeGreaterThan(b.methodology.uncertainty_pct);
      expect(i[c].confidence).toBe('estimated_high');
      expect(i[c].sources.join(' ')).toMatch(/boaviztapi\/data\/factors\.yml at commit 15878f045bf0/);
    }
    // A 14-inch laptop: its processor alone is 0.0204 kg Sb eq (BoaviztAPI CPU), a few thousand MJ in all
    expect(i.adpe.total).toBeGreaterThan(0.02);
    expect(i.adpe.total).toBeLessThan(0.08);
    expect(i.pe.total).toBeGreaterThan(1500);
    expect(i.pe.total).toBeLessThan(8000);
  });

  it('POST /v1/footprint/batch: every item carries impacts, in its own country', async () => {
    const res = await t.json('/v1/footprint/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        products: [
          { ...laptop, country: 'DE' },
          { ...laptop, country: 'FR' },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const [de, fr] = res.body.results;
    expect(de.impacts.electricity.region_code).toBe('DE');
    expect(fr.impacts.electricity.region_code).toBe('FR');
    // same device, same production; the use phase follows the country's factor
    expect(fr.impacts.adpe.phases.production).toBe(de.impacts.adpe.phases.production);
    expectNear(fr.impacts.pe.phases.use / de.impacts.pe.phases.use, PE_PER_KWH.FR / PE_PER_KWH.DE);
    expect(fr.impacts.gwp.total).toBe(fr.total_kg_co2e);
  });

  it('GET /v1/savings: avoided production and transport per criterion, less the older device extra electricity', async () => {
    const fp = (await t.json(`/v1/footprint?${qs({ ...laptop, country: 'FR' })}`)).body;
    const res = await t.json(`/v1/savings?${qs({ ...laptop, country: 'FR', remaining_years: 3 })}`);
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s.impacts.gwp).toMatchObject({
      total: s.avoided_co2_kg,
      phases: { production: s.avoided_production_kg, transport: s.avoided_transport_kg, use: -s.additional_use_phase_kg, end_of_life: 0 },
    });
    const extraKwh = s.methodology.annual_kwh * OLD_DEVICE_ENERGY_PENALTY * 3;
    expectNear(s.impacts.adpe.phases.use, -extraKwh * ADPE_PER_KWH.FR);
    expectNear(s.impacts.pe.phases.use, -extraKwh * PE_PER_KWH.FR);
    expect(s.impacts.adpe.phases.production).toBe(fp.impacts.adpe.phases.production);
    expectNear(s.impacts.pe.total, fp.impacts.pe.phases.production + fp.impacts.pe.phases.transport - extraKwh * PE_PER_KWH.FR);
    expect(s.impacts.adpe.phases.end_of_life).toBe(0);
  });

  it('GET /v1/refurbishment: net ADPe and PE with the electricity of the country of reuse', async () => {
    const res = await t.json(`/v1/refurbishment?${qs({ ...laptop, country: 'DE', reuse_country: 'FR', grade: 'B', remaining_years: 2 })}`);
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.impacts.gwp.total).toBe(r.net_savings_kg);
    expect(r.impacts.gwp.phases.use).toBe(-r.adjusted_use_phase.additional_use_phase_kg);
    const extraKwh = r.adjusted_use_phase.annual_kwh_new * OLD_DEVICE_ENERGY_PENALTY * 2;
    expectNear(r.impacts.pe.phases.use, -extraKwh * PE_PER_KWH.FR);
    expectNear(r.impacts.adpe.phases.use, -extraKwh * ADPE_PER_KWH.FR);
    for (const c of ['adpe', 'pe'] as const) {
      expect(r.impacts[c].phases.production).toBeGreaterThan(0);
      expect(r.impacts[c].notes).toContain('refurbishment cleaning and packaging: no sourced factor for this criterion, not counted (gap)');
    }
  });

  it('GraphQL footprint answers the same impacts, and a stored calculation keeps them in its result', async () => {
    const q = `query($brand: String!, $model: String, $country: String!, $battery_wh: Float) {
      footprint(brand: $brand, model: $model, category: "laptop", country: $country, battery_wh: $battery_wh) {
        calculation_id total_kg_co2e
        impacts { gwp { total } adpe { unit total phases { use } interval { low high } } pe { total } electricity { region_code pe_mj_per_kwh } }
      } }`;
    const res = await t.graphql(q, { brand: 'Acme', model: 'Stored 13', country: 'fr', battery_wh: 50 }, orgKey);
    expect(res.status).toBe(200);
    const f = res.body.data.footprint;
    expect(f.impacts.gwp.total).toBe(f.total_kg_co2e);
    expect(f.impacts.electricity).toEqual({ region_code: 'FR', pe_mj_per_kwh: PE_PER_KWH.FR });
    expect(f.impacts.adpe.unit).toBe('kg Sb eq');
    const rest = await t.json(
      `/v1/footprint?${qs({ brand: 'Acme', model: 'Stored 13', category: 'laptop', country: 'fr', battery_wh: 50 })}`,
      {
        headers: { authorization: `Bearer ${orgKey}` },
      },
    );
    expect(rest.body.impacts.adpe.total).toBe(f.impacts.adpe.total);
    expect(rest.body.impacts.pe.total).toBe(f.impacts.pe.total);
    const [row] = await t.app.services.db.prisma.$queryRawUnsafe<{ result: any }[]>(
      'SELECT result FROM calculations WHERE id = $1::uuid',
      f.calculation_id,
    );
    const stored = typeof row!.result === 'string' ? JSON.parse(row!.result) : row!.result;
    expect(stored.impacts.adpe.total).toBe(f.impacts.adpe.total);
    expect(stored.impacts.pe.phases).toEqual(rest.body.impacts.pe.phases);
  });

  it('the electricity ADPe and PE are factor rows of the boavizta registry, with provenance', async () => {
    const prisma = t.app.services.db.prisma;
    const [registry] = await prisma.$queryRawUnsafe<{ key: string; url: string; license: string; current_version: string }[]>(
      "SELECT key, url, license, current_version FROM factor_registries WHERE key = 'boavizta'",
    );
    expect(registry).toMatchObject({ key: 'boavizta', url: 'https://github.com/Boavizta/boaviztapi' });
    expect(registry!.license).toMatch(/AGPL-3.0/);
    expect(registry!.current_version).toMatch(/15878f045bf06bc6ed685c7266c39f7e8498ab94/);
    const counts = await prisma.$queryRawUnsafe<{ type: string; n: number }[]>(
      `SELECT type::text AS type, count(*)::int AS n FROM emission_factors WHERE type IN ('ELECTRICITY_ADPE', 'ELECTRICITY_PE') GROUP BY type ORDER BY type`,
    );
    expect(counts).toEqual([
      { type: 'ELECTRICITY_ADPE', n: 135 },
      { type: 'ELECTRICITY_PE', n: 135 },
    ]);
    const res = await t.graphql(
      `{ adpe: factorByRegion(type: ELECTRICITY_ADPE, regionCode: "de") { value unit source_version source_license registry { key } }
         pe: factorByRegion(type: ELECTRICITY_PE, regionCode: "FR") { value unit valid_from } }`,
      {},
      orgKey,
    );
    expect(res.body.data.adpe).toMatchObject({ value: ADPE_PER_KWH.DE, unit: 'kg Sb eq/kWh', registry: { key: 'boavizta' } });
    expect(res.body.data.adpe.source_version).toMatch(/2011.*boaviztapi commit 15878f045bf0/);
    expect(res.body.data.adpe.source_license).toMatch(/ADEME/);
    expect(res.body.data.pe).toEqual({ value: PE_PER_KWH.FR, unit: 'MJ/kWh', valid_from: '2011-01-01' });
  });
});
