import { beforeAll, describe, expect, it } from 'vitest';
import { CatalogueIndex, loadCatalogue, matchModel, type CatalogueEntry } from '../../src/catalogue/search.ts';
import { brandName, parseReport, type ParsedReport } from '../../src/erasure/blancco-report.ts';
import { getCategory } from '../../src/footprint/engine/index.ts';
import { problemsOf } from '../../src/validation/schemas.ts';
import { deviceSpecs } from '../../src/footprint/inputs.ts';
import {
  CATALOGUE_MODELS,
  desktopReport,
  generateReports,
  laptopReport,
  missingFieldsReport,
  phoneReport,
  serverReport,
  unsuccessfulReport,
} from './fixtures.ts';

function parsed(raw: unknown): ParsedReport {
  const result = parseReport(raw);
  if (!result.ok) throw new Error(result.error);
  return result.report;
}

let index: CatalogueIndex;
beforeAll(() => {
  index = new CatalogueIndex(loadCatalogue());
});

const matches = new Map<string, CatalogueEntry | undefined>();
/** What the lookup chain's built-in step finds for the parsed brand and model (memoised like CatalogueService). */
function catalogueMatch(brand: string, model: string): CatalogueEntry | undefined {
  const key = `${brand}\u0000${model}`;
  if (!matches.has(key)) matches.set(key, matchModel(index, model, brand)?.entry);
  return matches.get(key);
}

describe('fixtures in the built-in catalogue', () => {
  it.each([
    ['laptop', laptopReport, 'Dell Latitude 5420', 'laptop'],
    ['desktop', desktopReport, 'HP EliteDesk 800 G6 Small Form Factor', 'desktop'],
    ['server', serverReport, 'HPE ProLiant DL380 Gen10 Plus', 'server'],
    ['phone', phoneReport, 'Samsung Galaxy S23', 'smartphone'],
    ['missing fields', missingFieldsReport, 'Lenovo ThinkPad T14 Gen 2 Intel', 'laptop'],
    ['unsuccessful', unsuccessfulReport, 'Dell Latitude 7420', 'laptop'],
  ])('%s report -> %s', (_, report, name, category) => {
    const { brand, model } = parsed(report).device;
    expect(catalogueMatch(brand!, model!)).toMatchObject({ name, category });
  });

  it('the server fixture is within the server category limits', () => {
    const { device } = parsed(serverReport);
    expect(problemsOf(deviceSpecs(getCategory('server')!), device.specs)).toEqual([]);
  });

  it.each(Object.entries(CATALOGUE_MODELS).flatMap(([kind, models]) => models.map((m) => [kind, m.manufacturer, m.model] as const)))(
    'generator model (%s) %s %s is in the catalogue',
    (kind, manufacturer, model) => {
      expect(catalogueMatch(brandName(manufacturer), model)?.category).toBe(kind === 'phone' ? 'smartphone' : kind);
    },
  );
});

describe('generateReports', () => {
  const now = new Date('2026-11-23T00:00:00Z');
  const reports = generateReports(1000, 7, { now });
  const devices = reports.map(parsed);

  it('is deterministic for a seed', () => {
    expect(generateReports(1000, 7, { now })).toEqual(reports);
    expect(generateReports(10, 8, { now })).not.toEqual(reports.slice(0, 10));
  });

  it('has unique uuids and serial numbers, dates in the 60 days before now', () => {
    expect(new Set(devices.map((d) => d.uuid)).size).toBe(1000);
    expect(new Set(devices.map((d) => d.device.serial_number)).size).toBe(1000);
    const times = devices.map((d) => d.erased_at!.getTime());
    expect([Math.min(...times) >= now.getTime() - 60 * 86_400_000, Math.max(...times) <= now.getTime()]).toEqual([true, true]);
  });

  it('mixes categories, catalogue and unknown models, and failed erasures as intended', () => {
    const count = (f: (d: ParsedReport) => boolean) => devices.filter(f).length;
    const byCategory = Object.fromEntries(
      ['laptop', 'desktop', 'server', 'smartphone'].map((c) => [c, count((d) => d.device.category === c)]),
    );
    expect(byCategory).toEqual({ laptop: 617, desktop: 240, server: 50, smartphone: 93 });
    const known = (d: ParsedReport) => catalogueMatch(d.device.brand!, d.device.model!) !== undefined;
    expect(count(known)).toBe(702);
    expect(count((d) => ['Contoso', 'Fabrikam'].includes(d.device.brand!))).toBe(1000 - 702);
    expect(count((d) => d.erasure_state === 'unsuccessful')).toBe(15);
  });

  it('every generated device is valid for its category', () => {
    const problems = devices.flatMap((d) => problemsOf(deviceSpecs(getCategory(d.device.category!)!), d.device.specs));
    expect(problems).toEqual([]);
  });
});
