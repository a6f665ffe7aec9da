import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startServices, stopServices } from '../../src/startup.ts';
import type { Services } from '../../src/services.ts';
import type { Caller } from '../../src/auth/caller.ts';
import type { ReportView } from '../../src/documents/views.ts';
import { assembleReportView, periodSemantics } from '../../src/reports/view.ts';
import { INTERVAL_METHOD, uncertaintyInterval } from '../../src/footprint/engine/interval.ts';
import type { ReportRequest } from '../../src/reports/request.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';

/**
 * The report's numbers on a small organisation whose every asset is known: which assets the period
 * takes (period semantics), the totals and breakdowns (sums of the stored figures), and the savings and
 * actions, checked against the public footprint service (the same engine through its own lookup chain).
 */
let services: Services;
let dataDir: string;
let orgId: string;
let emptyOrgId: string;
let laterOrgId: string;
let criteriaOrgId: string;
const anonymous: Caller = { kind: 'anonymous', ip: 'test', plan: 'free' };
const LAPTOP = { brand: 'Acme', model: 'Custom Laptop 14', category: 'laptop' };
const MONITOR = { brand: 'Acme', model: 'Custom Monitor 24', category: 'monitor' };
/** Far less GWP than the monitor, far more ADPe (its electronics and battery in a small device). */
const PHONE = { brand: 'Acme', model: 'Custom Phone 6', category: 'smartphone' };
const PERIOD = { dateFrom: '2025-01-01', dateTo: '2025-12-31' };

type Device = typeof LAPTOP;
interface Seeded {
  serial: string;
  device: Device;
  country: string;
  status: 'in_use' | 'resold' | 'refurbished' | 'recycled';
  purchase_date: string | null;
  calculated_at: string;
  /** When the status was last changed (asset_events); none: since the asset's creation (now). */
  status_changed_at?: string;
  /** An older record: no methodology in its result, no factor in calculation_factors. */
  bare?: boolean;
}

// Period 2025: A1, A2, A3, A4, A7 are in the inventory; A5 left before it, A6 was bought after it.
const ASSETS: Seeded[] = [
  { serial: 'A1', device: LAPTOP, country: 'DE', status: 'in_use', purchase_date: '2025-03-10', calculated_at: '2025-03-10T09:00:00Z' },
  {
    serial: 'A2',
    device: LAPTOP,
    country: 'SE',
    status: 'in_use',
    purchase_date: '2024-06-01',
    calculated_at: '2024-06-01T09:00:00Z',
    bare: true,
  },
  {
    serial: 'A3',
    device: MONITOR,
    country: 'DE',
    status: 'resold',
    purchase_date: '2022-01-01',
    calculated_at: '2022-01-01T09:00:00Z',
    status_changed_at: '2025-05-05T10:00:00Z',
  },
  {
    serial: 'A4',
    device: LAPTOP,
    country: 'DE',
    status: 'refurbished',
    purchase_date: null,
    calculated_at: '2025-07-01T09:00:00Z',
    status_changed_at: '2025-07-01T10:00:00Z',
  },
  {
    serial: 'A5',
    device: LAPTOP,
    country: 'DE',
    status: 'recycled',
    purchase_date: '2020-01-01',
    calculated_at: '2020-01-01T09:00:00Z',
    status_changed_at: '2024-12-31T23:59:59Z',
  },
  { serial: 'A6', device: LAPTOP, country: 'DE', status: 'in_use', purchase_date: '2026-01-15', calculated_at: '2026-01-15T09:00:00Z' },
  { serial: 'A7', device: MONITOR, country: 'FR', status: 'in_use', purchase_date: '2025-12-31', calculated_at: '2025-12-31T23:59:59Z' },
];
const stored = new Map<string, Awaited<ReturnType<Services['footprint']['footprint']>>>();
const footprint = (device: Device, country: string) => services.footprint.footprint({ ...device, country }, anonymous);

async function seed(a: Seeded, org = orgId): Promise<void> {
  const f = await footprint(a.device, a.country);
  stored.set(a.serial, f);
  const prisma = services.db.prisma;
  const calc = await prisma.calculation.create({
    data: {
      org_id: org,
      kind: 'footprint',
      engine_version: f.methodology.engine_version,
      country: f.country,
      category: a.device.category,
      confidence: f.methodology.confidence,
      total_kg_co2e: f.total_kg_co2e,
      ...f.breakdown,
      inputs: {},
      result: a.bare ? {} : JSON.parse(JSON.stringify(f)),
      created_at: new Date(a.calculated_at),
    },
  });
  if (!a.bare)
    await prisma.calculationFactor.create({
      data: { calculation_id: calc.id, factor_id: services.reference.gridFactor(a.country)!.id, role: 'use_grid', org_id: org },
    });
  const asset = await prisma.asset.create({
    data: {
      org_id: org,
      ...a.device,
      serial_number: a.serial,
      status: a.status,
      country: a.country,
      active_calculation_id: calc.id,
      purchase_date: a.purchase_date ? new Date(`${a.purchase_date}T00:00:00Z`) : null,
      total_kg_co2e: f.total_kg_co2e,
    },
  });
  if (a.status_changed_at) {
    await prisma.assetEvent.create({
      data: {
        org_id: org,
        asset_id: asset.id,
        event: 'asset.status_changed',
        from_value: 'in_use',
        to_value: a.status,
        created_at: new Date(a.status_changed_at),
      },
    });
  }
}

const view = (request: Partial<ReportRequest> = {}, org = orgId) =>
  assembleReportView(
    { prisma: services.scopes.for(org), orgId: org, reference: services.reference, sandbox: false },
    { type: 'sustainability_summary', ...PERIOD, ...request },
  );
const totalOf = (...serials: string[]) => serials.reduce((t, s) => t + stored.get(s)!.total_kg_co2e, 0);
const phaseOf = (phase: 'production_kg' | 'use_phase_kg', ...serials: string[]) =>
  serials.reduce((t, s) => t + stored.get(s)!.breakdown[phase], 0);
const row = (rows: ReportView['by_category'], label: string) => rows.find((r) => r.label === label);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-report-view-'));
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: 'test-admin-token-0123456789abcdef', LOG_LEVEL: 'silent' });
  services = await startServices(config, createLogger('silent'), await openTestDatabase());
  orgId = (await services.db.prisma.organization.create({ data: { name: 'Müller Reporting GmbH', plan: 'pro' } })).id;
  emptyOrgId = (await services.db.prisma.organization.create({ data: { name: 'Empty Ltd', plan: 'pro' } })).id;
  laterOrgId = (await services.db.prisma.organization.create({ data: { name: 'Later Ltd', plan: 'pro' } })).id;
  await seed(
    { serial: 'B1', device: LAPTOP, country: 'DE', status: 'in_use', purchase_date: '2024-02-29', calculated_at: '2024-02-29T09:00:00Z' },
    laterOrgId,
  );
  for (const a of ASSETS) await seed(a);
  // One monitor and four smartphones, one of them calculated before impacts beyond carbon.
  criteriaOrgId = (await services.db.prisma.organization.create({ data: { name: 'Metals Ltd', plan: 'pro' } })).id;
  const inUse = { country: 'DE', status: 'in_use', purchase_date: '2025-02-01', calculated_at: '2025-02-01T09:00:00Z' } as const;
  await seed({ ...inUse, serial: 'M1', device: MONITOR }, criteriaOrgId);
  for (const serial of ['P1', 'P2', 'P3']) await seed({ ...inUse, serial, device: PHONE }, criteriaOrgId);
  await seed({ ...inUse, serial: 'P4', device: PHONE, bare: true }, criteriaOrgId);
  // An asset without a calculation (e.g. one whose import failed to calculate) is named in the notes.
  await services.db.prisma.asset.create({ data: { org_id: orgId, ...LAPTOP, serial_number: 'A8', country: 'DE' } });
  await services.db.prisma.sbtiTarget.create({
    data: {
      org_id: orgId,
      name: 'Scope 3 hardware',
      scope: 'scope 3',
      base_year: 2022,
      base_year_kg_co2e: 50_000,
      target_year: 2030,
      reduction_pct: 42,
    },
  });
}, 120_000);
afterAll(async () => {
  if (services) await stopServices(services);
  await rm(dataDir, { recursive: true, force: true });
});

describe(`report view assembly on ${TEST_DATABASE_KIND}`, () => {
  it('takes the inventory as of dateTo: bought by then, not gone before dateFrom', async () => {
    const v = await view();
    expect(v).toMatchObject({
      organization_name: 'Müller Reporting GmbH',
      date_from: '2025-01-01',
      date_to: '2025-12-31',
      empty: false,
      sandbox: false,
    });
    expect(v.period_semantics).toBe(periodSemantics(PERIOD));
    expect(v.asset_count).toBe(5); // A1 A2 A3 A4 A7
    expect(v.calculation_count).toBe(3); // recorded in 2025: A1, A4, A7 (the last second of the period included)
    expect(v.totals.total_kg_co2e).toBeCloseTo(totalOf('A1', 'A2', 'A3', 'A4', 'A7'), 2);
    expect(v.totals.production_kg).toBeCloseTo(phaseOf('production_kg', 'A1', 'A2', 'A3', 'A4', 'A7'), 2);
    expect(v.totals.use_phase_kg).toBeCloseTo(phaseOf('use_phase_kg', 'A1', 'A2', 'A3', 'A4', 'A7'), 2);
    const { production_kg, transport_kg, use_phase_kg, end_of_life_kg, total_kg_co2e } = v.totals;
    expect(production_kg + transport_kg + use_phase_kg + end_of_life_kg).toBeCloseTo(total_kg_co2e, 1);
  });

  it('breaks the totals down by category, country and purchase month', async () => {
    const v = await view();
    const total = v.totals.total_kg_co2e;
    expect(row(v.by_category, 'Laptop')).toMatchObject({ assets: 3 });
    expect(row(v.by_category, 'Laptop')!.total_kg_co2e).toBeCloseTo(totalOf('A1', 'A2', 'A4'), 2);
    expect(row(v.by_category, 'Monitor')!.total_kg_co2e).toBeCloseTo(totalOf('A3', 'A7'), 2);
    expect(row(v.by_category, 'Laptop')!.share_pct).toBeCloseTo((totalOf('A1', 'A2', 'A4') / total) * 100, 1);
    expect(v.by_country.map((r) => r.label).sort()).toEqual(['DE (Germany)', 'FR (France)', 'SE (Sweden)']);
    expect(row(v.by_country, 'DE (Germany)')).toMatchObject({ assets: 3 });
    expect(row(v.by_country, 'DE (Germany)')!.total_kg_co2e).toBeCloseTo(totalOf('A1', 'A3', 'A4'), 2);
    // Largest first.
    expect(v.by_category.map((r) => r.total_kg_co2e)).toEqual([...v.by_category.map((r) => r.total_kg_co2e)].sort((a, b) => b - a));
    // Every month of the period, the purchases of each (A1 in March, A7 on the last day of December).
    const months = v.trend.buckets;
    expect(v.trend.granularity).toBe('month');
    expect(months.map((m) => m.period)).toEqual(Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}`));
    expect(months.map((m) => m.label).slice(0, 3)).toEqual(['Jan 2025', 'Feb 2025', 'Mar 2025']);
    expect(months[2]!.total_kg_co2e).toBeCloseTo(totalOf('A1'), 2);
    expect(months[11]!.total_kg_co2e).toBeCloseTo(totalOf('A7'), 2);
    expect(months.filter((m) => m.total_kg_co2e > 0)).toHaveLength(2);
  });

  it('aggregates the trend by quarter up to eight years and by year beyond, one bucket per quarter or year', async () => {
    const quarters = await view({ dateFrom: '2020-01-01', dateTo: '2025-12-31' });
    expect(quarters.trend.granularity).toBe('quarter');
    expect(quarters.trend.buckets).toHaveLength(24);
    expect(quarters.trend.buckets[0]).toMatchObject({ period: '2020-Q1', label: 'Q1 2020' });
    const bucket = (v: ReportView, period: string) => v.trend.buckets.find((b) => b.period === period)!.total_kg_co2e;
    expect(bucket(quarters, '2025-Q1')).toBeCloseTo(totalOf('A1'), 2);
    expect(bucket(quarters, '2024-Q2')).toBeCloseTo(totalOf('A2'), 2);
    expect(bucket(quarters, '2022-Q1')).toBeCloseTo(totalOf('A3'), 2);
    // 1990 to 2026: years; A5 (bought 2020, recycled 2024) is in this inventory.
    const years = await view({ dateFrom: '1990-01-01', dateTo: '2026-06-30' });
    expect(years.trend.granularity).toBe('year');
    expect(years.trend.buckets.map((b) => b.period)).toEqual(Array.from({ length: 37 }, (_, i) => String(1990 + i)));
    expect(bucket(years, '2025')).toBeCloseTo(totalOf('A1', 'A7'), 2);
    expect(bucket(years, '2020')).toBeCloseTo(totalOf('A5'), 2);
    expect(bucket(years, '2026')).toBeCloseTo(totalOf('A6'), 2);
    expect(years.asset_count).toBe(7);
    // Two years exactly is still by month.
    expect((await view({ dateFrom: '2024-01-01', dateTo: '2025-12-31' })).trend.buckets).toHaveLength(24);
  });

  it("states the interval of the totals and of each phase: the assets' intervals summed bound by bound, never below zero", async () => {
    const v = await view();
    const inventory = ['A1', 'A2', 'A3', 'A4', 'A7'];
    const sumOf = (value: (serial: string) => number, u: (serial: string) => number | null, bound: 'low_kg' | 'high_kg') =>
      inventory.reduce((t, s) => t + (u(s) === null ? value(s) : uncertaintyInterval(value(s), u(s)!)[bound]), 0);
    const stated = (s: string) => (s === 'A2' ? null : stored.get(s)!.methodology.uncertainty_pct);
    const total = (s: string) => stored.get(s)!.total_kg_co2e;
    expect(v.uncertainty.total.low_kg).toBeCloseTo(sumOf(total, stated, 'low_kg'), 1);
    expect(v.uncertainty.total.high_kg).toBeCloseTo(sumOf(total, stated, 'high_kg'), 1);
    expect(v.uncertainty.total.low_kg).toBeLessThan(v.totals.total_kg_co2e);
    expect(v.uncertainty.total.high_kg).toBeGreaterThan(v.totals.total_kg_co2e);
    for (const phase of ['production_kg', 'transport_kg', 'use_phase_kg', 'end_of_life_kg'] as const) {
      const value = (s: string) => stored.get(s)!.breakdown[phase];
      expect(v.uncertainty.phases[phase].low_kg, phase).toBeCloseTo(sumOf(value, stated, 'low_kg'), 1);
      expect(v.uncertainty.phases[phase].high_kg, phase).toBeCloseTo(sumOf(value, stated, 'high_kg'), 1);
      expect(v.uncertainty.phases[phase].low_kg, phase).toBeGreaterThanOrEqual(0);
    }
    expect(v.uncertainty.method).toContain(INTERVAL_METHOD);
    // A2's older record states no uncertainty: at its value in both bounds, and the notes say so.
    expect(v.uncertainty.assets_without_uncertainty).toBe(1);
    expect(v.notes).toContain(
      'The calculation of 1 asset states no uncertainty: its figures count at their value in both bounds of the intervals.',
    );
  });

  it('gives the confidence mix, the engine versions and the grid factors behind the figures', async () => {
    const v = await view();
    const inventory = ['A1', 'A2', 'A3', 'A4', 'A7'];
    const levels = new Map<string, string[]>();
    for (const s of inventory)
      levels.set(stored.get(s)!.methodology.confidence, [...(levels.get(stored.get(s)!.methodology.confidence) ?? []), s]);
    expect(v.confidence_mix.map((c) => [c.level, c.assets])).toEqual([...levels].map(([level, serials]) => [level, serials.length]));
    for (const c of v.confidence_mix) {
      expect(c.share_pct).toBeCloseTo((c.assets / 5) * 100, 1);
      expect(c.total_kg_co2e).toBeCloseTo(totalOf(...levels.get(c.level)!), 2);
    }
    expect(v.confidence_mix.reduce((t, c) => t + c.share_pct, 0)).toBeCloseTo(100, 0);
    expect(v.engine_versions).toEqual([{ version: stored.get('A1')!.methodology.engine_version, assets: 5 }]);
    // A1, A3, A4 in DE and A7 in FR record their grid factor; A2's older record none.
    const factor = (code: string) => services.reference.gridFactor(code)!;
    expect(v.grid_factor_sources.map((s) => [s.source, s.version, s.valid_from.first, s.assets]).sort()).toEqual(
      [
        [factor('DE').source, factor('DE').source_version, factor('DE').valid_from.toISOString().slice(0, 10), 3],
        [factor('FR').source, factor('FR').source_version, factor('FR').valid_from.toISOString().slice(0, 10), 1],
      ].sort(),
    );
    expect(v.grid_factor_sources.every((s) => s.licence !== null && s.regions === 1)).toBe(true);
    expect(v.assets_without_grid_factor).toBe(1);
    expect(v.notes).toContain(
      'The calculation of 1 asset states no grid factor (an older record): the grid factors listed are those of the other assets.',
    );
  });

  it('counts savings of the assets resold or refurbished in the period, as the savings and refurbishment endpoints compute them', async () => {
    const v = await view();
    const reuse = await services.footprint.savings({ ...MONITOR, country: 'DE', remaining_years: 2 }, anonymous); // A3
    const refurbished = await services.footprint.refurbishment({ ...LAPTOP, country: 'DE', grade: 'B', remaining_years: 2 }, anonymous); // A4
    expect(v.savings!.reuse_kg_co2e).toBeCloseTo(reuse.avoided_co2_kg, 1);
    expect(v.savings!.refurbishment_kg_co2e).toBeCloseTo(refurbished.net_savings_kg, 1);
    expect(v.savings!.basis).toMatch(/^1 asset resold and 1 refurbished in the period; engine/);
    expect(v.sbti_targets).toEqual([{ name: 'Scope 3 hardware', base_year: 2022, target_year: 2030, reduction_pct: 42, scope: 'scope 3' }]);
    expect(v.hotspots).toBeUndefined();
    // The next year: A3 was resold before it and is gone; A4 was refurbished before it (no saving in that period).
    const later = await view({ dateFrom: '2026-01-01', dateTo: '2026-06-30' });
    expect(later.asset_count).toBe(5); // A1 A2 A4 A6 A7
    expect(later.savings).toMatchObject({ reuse_kg_co2e: 0, refurbishment_kg_co2e: 0 });
  });

  it('says what it left out and how the figures were made', async () => {
    const { notes } = await view();
    expect(notes).toContain('1 asset has no purchase date and is counted as held throughout the period.');
    expect(notes).toContain('1 asset has no calculation and is not included.');
    expect(notes.join(' ')).toMatch(/stored active calculations/);
  });

  it('ranks hotspots and prices each action with the engine', async () => {
    const v = await view({ type: 'hotspot_analysis' });
    expect(v.savings).toBeUndefined();
    const h = v.hotspots!;
    expect(h.categories.map((r) => r.label)).toEqual(v.by_category.map((r) => r.label));
    expect(h.models.map((r) => r.label).sort()).toEqual(['Acme Custom Laptop 14 (Laptop)', 'Acme Custom Monitor 24 (Monitor)']);
    // Production components: the stored production figures split by the engine's component model.
    expect(h.components.reduce((t, c) => t + c.value, 0)).toBeCloseTo(v.totals.production_kg, 0);
    expect(h.components.reduce((t, c) => t + c.share_pct, 0)).toBeCloseTo(100, 0);
    expect(h.components.map((c) => c.value)).toEqual([...h.components.map((c) => c.value)].sort((a, b) => b - a));

    // Actions apply to the assets in service: A1 (laptop, DE), A2 (laptop, SE), A7 (monitor, FR).
    const action = (text: string) => h.actions.find((a) => a.action === text);
    const savings1 = (device: Device, country: string) =>
      services.footprint.savings({ ...device, country, remaining_years: 1 }, anonymous).then((s) => s.avoided_co2_kg);
    const refurb1 = (device: Device, country: string) =>
      services.footprint.refurbishment({ ...device, country, grade: 'B', remaining_years: 1 }, anonymous).then((r) => r.net_savings_kg);
    const use = (device: Device, country: string) => footprint(device, country).then((f) => f.breakdown.use_phase_kg);
    expect(action('Laptop: extend the life of 2 devices by one year')!.saving).toBeCloseTo(
      (await savings1(LAPTOP, 'DE')) + (await savings1(LAPTOP, 'SE')),
      1,
    );
    expect(action('Laptop: refurbish 2 devices (grade B) instead of buying new')!.saving).toBeCloseTo(
      (await refurb1(LAPTOP, 'DE')) + (await refurb1(LAPTOP, 'SE')),
      1,
    );
    expect(action('Monitor: extend the life of 1 device by one year')!.saving).toBeCloseTo(await savings1(MONITOR, 'FR'), 1);
    // Sweden has the cleanest grid of DE, FR and SE: only the assets elsewhere move.
    const moveLaptops = action('Laptop: use 1 device in Sweden (SE) instead of their current countries')!;
    expect(moveLaptops.saving).toBeCloseTo((await use(LAPTOP, 'DE')) - (await use(LAPTOP, 'SE')), 1);
    expect(moveLaptops.basis).toMatch(/grid factor of SE/);
    expect(action('Monitor: use 1 device in Sweden (SE) instead of their current countries')!.saving).toBeCloseTo(
      (await use(MONITOR, 'FR')) - (await use(MONITOR, 'SE')),
      1,
    );
    expect(h.actions.map((a) => a.saving)).toEqual([...h.actions.map((a) => a.saving)].sort((a, b) => b - a));
    for (const a of h.actions) expect(a.basis).toMatch(/engine \d+\.\d+\.\d+/i);
  });

  it('is an honest empty report for an organisation without assets, and for a period before its first purchase', async () => {
    const none = await view({}, emptyOrgId);
    expect(none).toMatchObject({ empty: true, asset_count: 0, totals: { total_kg_co2e: 0 }, by_category: [], by_country: [] });
    expect(none.trend.buckets).toHaveLength(12);
    expect(none.notes[0]).toMatch(/has no assets yet/);
    const before = await view({ dateFrom: '2023-01-01', dateTo: '2024-02-28', type: 'hotspot_analysis' }, laterOrgId);
    expect(before).toMatchObject({ empty: true, asset_count: 0 });
    expect(before.hotspots).toMatchObject({ models: [], components: [], actions: [] });
    expect(before.notes[0]).toBe(
      'No asset was in the inventory in this period: the organisation has 1 asset, the earliest purchased on 2024-02-29.',
    );
  });
});

describe(`hotspots by criterion on ${TEST_DATABASE_KIND}`, () => {
  const hotspots = async (criterion?: ReportRequest['criterion']) => {
    const v = await view({ type: 'hotspot_analysis', criterion }, criteriaOrgId);
    return { v, h: v.hotspots! };
  };
  const impactOf = (criterion: 'adpe' | 'pe', part: 'total' | 'production', ...serials: string[]) =>
    serials.reduce((t, s) => {
      const c = stored.get(s)!.impacts[criterion];
      return t + (part === 'total' ? c.total : c.phases.production);
    }, 0);
  /** Within the 4 significant digits the API rounds ADPe and PE to. */
  const near = (actual: number, expected: number) => expect(Math.abs(actual - expected) / expected).toBeLessThan(1e-3);

  it('ranks by GWP by default: the monitor first', async () => {
    const { h } = await hotspots();
    expect(h.criterion).toEqual({ id: 'gwp', name: 'GWP', meaning: 'global warming', unit: 'kg CO2e' });
    expect(h.categories.map((r) => [r.label, r.assets])).toEqual([
      ['Monitor', 1],
      ['Smartphone', 4],
    ]);
    expect(h.categories[1]!.value).toBeCloseTo(totalOf('P1', 'P2', 'P3', 'P4'), 2);
    expect(h.assets_without_impacts).toBe(0);
  });

  it('ranks by ADPe from the stored impacts: the smartphones, high in ADPe and low in GWP, come first; the older calculation apart', async () => {
    const { v, h } = await hotspots('adpe');
    expect(h.criterion).toEqual({ id: 'adpe', name: 'ADPe', meaning: 'abiotic depletion of elements', unit: 'kg Sb eq' });
    // P4 was calculated before ADPe: not ranked, said so; its GWP stays in the totals.
    expect(h.categories.map((r) => [r.label, r.assets])).toEqual([
      ['Smartphone', 3],
      ['Monitor', 1],
    ]);
    expect(h.models.map((r) => r.label)).toEqual(['Acme Custom Phone 6 (Smartphone)', 'Acme Custom Monitor 24 (Monitor)']);
    near(h.categories[0]!.value, impactOf('adpe', 'total', 'P1', 'P2', 'P3'));
    near(h.categories[1]!.value, impactOf('adpe', 'total', 'M1'));
    const all = impactOf('adpe', 'total', 'P1', 'P2', 'P3', 'M1');
    expect(h.categories[0]!.share_pct).toBeCloseTo((impactOf('adpe', 'total', 'P1', 'P2', 'P3') / all) * 100, 1);
    expect(h.assets_without_impacts).toBe(1);
    expect(v.asset_count).toBe(5);
    expect(v.notes).toContain(
      'The calculation of 1 asset states no ADPe (calculated before ADPe and PE were): it is left out of the hotspots, not out of the totals.',
    );
    // Components: the stored ADPe of production split by the engine's component model.
    near(
      h.components.reduce((t, c) => t + c.value, 0),
      impactOf('adpe', 'production', 'P1', 'P2', 'P3', 'M1'),
    );
    // Actions in ADPe, as the savings endpoint answers them; the four phones in service all count.
    const saved = await services.footprint.savings({ ...PHONE, country: 'DE', remaining_years: 1 }, anonymous);
    const extend = h.actions.find((a) => a.action === 'Smartphone: extend the life of 4 devices by one year')!;
    near(extend.saving, 4 * saved.impacts!.adpe.total);
    expect(extend.basis).toContain('Figures in kg Sb eq (ADPe).');
    expect(h.actions.map((a) => a.saving)).toEqual([...h.actions.map((a) => a.saving)].sort((a, b) => b - a));
  });

  it('ranks by PE: the monitor first again', async () => {
    const { h } = await hotspots('pe');
    expect(h.criterion.unit).toBe('MJ');
    expect(h.categories.map((r) => r.label)).toEqual(['Monitor', 'Smartphone']);
    near(h.categories[1]!.value, impactOf('pe', 'total', 'P1', 'P2', 'P3'));
  });
});
