/**
 * Names as printed on manufacturers' sheets and typed by users (issue 15.5): resolveModel tries
 * normalised readings of a name (typedNameReadings) when the name as written resolves to nothing.
 * Checked on the built-in catalogue: the readings find the device, they never make an unknown
 * model resolve (generated unknown model numbers with every kind of suffix: 0 matches), and a
 * reading is refused when the device disagrees with what it dropped (a screen size, "Monitor").
 */
import { describe, expect, it } from 'vitest';
import { modelPart, numberRuns, unknownModel } from '../../bench/search.ts';
import { loadCatalogue } from '../../src/catalogue/catalogue-data.ts';
import { CatalogueIndex, resolveModel, typedNameReadings, type ModelResolution } from '../../src/catalogue/search.ts';
import { CatalogueService } from '../../src/catalogue/service.ts';
import type { PrismaClient } from '../../src/db/database.ts';
import { createLogger } from '../../src/observability/logger.ts';

const catalogue = loadCatalogue();
const index = new CatalogueIndex(catalogue);
const named = (r: ModelResolution | undefined): string =>
  !r
    ? 'none'
    : r.kind === 'device'
      ? r.entry.name
      : r.kind === 'family'
        ? `family ${r.family} (${r.candidates.length} devices)`
        : `variants ${r.candidates.map((e) => e.name).join(', ')}${r.chosen ? ` chosen ${r.chosen.name}` : ''}`;

/** Suffixes a sheet or a user adds to a model name, by catalogue category (all categories get the generic ones). */
const SUFFIXES: Record<string, string[]> = {
  laptop: [' Notebook PC', ' 14-inch', ' 15.6 inch Laptop PC', ' 2-in-1', ' 3rd Gen'],
  desktop: [' Micro Form Factor', ' Small Form Factor', ' Tower', ' SFF', ' MT', ' Desktop PC'],
  mini_pc: [' Micro Form Factor', ' Micro', ' Mini PC'],
  monitor: [' Monitor', ' 23.8-inch Monitor', ' FHD USB-C Monitor', ' (without stand)'],
  all_in_one: [' All-in-One Desktop', ' 23.8-inch All-in-One'],
  '*': [' Gen 3', ' 2nd Gen'],
};

describe('names as typed: sheet suffixes, form factors, generations, screen sizes (typedNameReadings)', () => {
  it('reads suffixes, form factors, sizes and generations the catalogue way', () => {
    expect(typedNameReadings('OptiPlex 3070 Micro Form Factor').map((r) => r.model)).toEqual(['optiplex 3070 micro']);
    expect(typedNameReadings('EliteBook 655 15.6 inch G9 Notebook PC', 'HP')).toEqual([
      { model: 'elitebook 655 g9', brand: 'HP', screen_inch: 15.6 },
      { model: 'elitebook 655 15.6 g9', brand: 'HP', screen_inch: 15.6 },
      { model: 'elitebook 655 15 g9', brand: 'HP', screen_inch: 15.6 },
    ]);
    expect(typedNameReadings('ThinkCentre M715 Tiny 2nd Gen')).toEqual([
      { model: 'thinkcentre m715 2nd gen', form: 'mini' },
      { model: 'thinkcentre m715 gen 2', form: 'mini' },
    ]);
    // A trailing "Monitor" alone changes nothing the as-written match does not already ignore: no reading.
    expect(typedNameReadings('AW2518H Monitor')).toEqual([]);
    expect(typedNameReadings('Z24n G3 WUXGA Display')[0]).toEqual({ model: 'z24n g3 display', display: true });
    // "2-in-1" is part of a name, not a size; a laptop's "15-inch display" is not a monitor
    expect(typedNameReadings('Latitude 3120 2-in-1')).toEqual([]);
    expect(typedNameReadings('Surface Book 3 15-inch display')[0]?.display).toBeUndefined();
  });

  it("resolves names as printed on manufacturers' sheets to the catalogue device", () => {
    const cases: [string, string, string][] = [
      ['Dell', 'OptiPlex 3070 Micro Form Factor', 'Dell OptiPlex 3070 Micro'],
      ['Dell', 'P2422H Monitor (without stand)', 'Dell P2422H Monitor'],
      ['HP', 'P24 G4 23.8-inch Monitor', 'HP P24 G4 Monitor'],
      ['HP', 'E24q G4 QHD Monitor', 'HP E24q G4 Monitor'],
      ['HP', 'Z27k G3 4K USB-C Display', 'HP Z27k G3 Monitor'],
      ['HP', 'ProBook 455 15.6 inch G9 Notebook PC', 'HP ProBook 455 G9'],
      ['HP', 'ZBook Fury 15.6 Inch G8 Mobile Workstation PC', 'HP ZBook Fury 15 G8'],
      ['HP', 'ZBook Fury 17.3 Inch G8 Mobile Workstation PC', 'HP ZBook Fury 17 G8'],
      ['Lenovo', 'ThinkPad 11e Yoga 6th Gen', 'Lenovo ThinkPad 11e Yoga Gen 6'],
      ['Apple', '13-inch MacBook Air (M1 CPU) 256GB - 2020', 'MacBook Air (M1, 2020)'],
      ['Apple', 'iPhone SE - Gen 2 64GB', 'Apple iPhone SE (2nd generation)'],
      ['Apple', '21.5-inch iMac with Retina 4K display (3.0GHz 6-core CPU) 1TB - 2019', 'iMac (Retina 4K, 21.5-inch, 2019)'],
      ['Microsoft', 'Surface Laptop 3 15-inch display Alcantara palm rest', 'Surface Laptop 3 15"'],
      ['Lenovo', 'ThinkCentre M820z AIO', 'Lenovo ThinkCentre M820z'],
      ['Lenovo', 'ThinkCentre M625q Tiny', 'Lenovo ThinkCentre M625q'],
      ['Lenovo', 'ThinkVision E24-20/T24s-20', 'Lenovo ThinkVision E24-20'],
      ['Samsung', 'Galaxy A12 (SM-A127F)', 'Samsung Galaxy A12'],
      ['HP', 'ProLiant DL380 Gen10 server4', 'HPE ProLiant DL380 Gen10'],
    ];
    for (const [brand, model, expected] of cases) {
      const r = resolveModel(index, model, brand);
      expect(named(r), model).toBe(expected);
      expect(r?.read_as, model).toBeTruthy();
    }
    // Names that match as written are not re-read.
    expect(resolveModel(index, 'Latitude 5440', 'Dell')?.read_as).toBeUndefined();
  });

  it("says in the footprint's match and data source how the name was read", async () => {
    const prisma = { $queryRaw: async () => [{ products: null }] } as unknown as PrismaClient;
    const service = await CatalogueService.create(prisma, createLogger('silent'));
    const m = service.findBuiltIn('Dell', null, 'OptiPlex 3070 Micro Form Factor');
    expect(m?.source).toBe("built-in catalogue: Dell OptiPlex 3070 Micro (by model name, read as 'optiplex 3070 micro')");
    expect(m?.match).toEqual({
      status: 'exact',
      chosen: { brand: 'Dell', mpn: m!.entry.mpn, name: 'Dell OptiPlex 3070 Micro' },
      candidates: [],
      basis: "model name, read as 'optiplex 3070 micro'",
      differing_specs: [],
    });
    expect(service.findBuiltIn('Dell', null, 'OptiPlex 3071 Micro Form Factor')).toBeUndefined();
  });

  it('refuses a reading when the device disagrees with the screen size or kind it dropped', () => {
    expect(named(resolveModel(index, '15-inch MacBook Air (M1 CPU) 256GB - 2020', 'Apple'))).toBe('none'); // the M1 Air is 13.3"
    expect(named(resolveModel(index, 'ZBook Fury 14 inch G8 Mobile Workstation PC', 'HP'))).toBe('none');
    expect(named(resolveModel(index, 'ProBook 455 13.3-inch G9 Notebook PC', 'HP'))).toBe('none');
    expect(named(resolveModel(index, 'ProBook 455 G9 FHD Monitor', 'HP'))).toBe('none'); // read as "... Monitor": a laptop
    expect(named(resolveModel(index, 'OptiPlex 7070 All-in-One', 'Dell'))).toBe('none');
    expect(named(resolveModel(index, 'Latitude 5440 Mini PC', 'Dell'))).toBe('none'); // a laptop, not a mini PC // the 7070s of the catalogue are no all-in-ones
    expect(named(resolveModel(index, 'ProLiant DL385 Gen10 server4', 'HP'))).toBe('none'); // only the Gen10 Plus is in the catalogue
    // names of two devices: no choice
    expect(named(resolveModel(index, 'ThinkVision P24h-20/T24h-20', 'Lenovo'))).toBe('none');
  });

  it('never resolves a name to a device whose name has a word the name lacks (issue 15.5: never a wrong device)', () => {
    // Names as users type them that once resolved to another device: a product kind in the middle
    // ("Watch", "Laptop"), a generation, "2-in-1", a "Yoga" or a panel revision after the model.
    const wrong: [string, string, string][] = [
      ['Google', 'Pixel 2', 'Google Pixel Watch 2'],
      ['Apple', 'Mac Pro 3', 'MacBook Pro 14-inch (M3, Nov 2023)'],
      ['Microsoft', 'Surface Studio 2', 'Surface Laptop Studio 2'],
      ['Lenovo', 'ThinkPad 11e', 'Lenovo ThinkPad 11e Yoga Gen 6'],
      ['Lenovo', 'ThinkPad E14', 'Lenovo ThinkPad E14 Gen 4'],
      ['Lenovo', 'ThinkBook 13s', 'Lenovo ThinkBook 13s G2 ITL'],
      ['Dell', 'Latitude 9420', 'Dell Latitude 9420 2-in-1'],
      ['Lenovo', 'ThinkVision P24q', 'Lenovo ThinkVision P24q-20'],
    ];
    for (const [brand, model, device] of wrong) {
      const r = resolveModel(index, model, brand);
      const devices = !r ? [] : r.kind === 'device' ? [r.entry.name] : r.kind === 'variants' ? r.candidates.map((e) => e.name) : [];
      expect(
        devices.some((d) => d.startsWith(device)),
        `${model} → ${named(r)}`,
      ).toBe(false);
    }
    for (const [brand, model] of wrong.filter(([, m]) => m !== 'ThinkPad E14'))
      expect(named(resolveModel(index, model, brand)), model).toBe('none');
    // Left out before the model a line name may be, and a size number inside it; a part number names the device.
    expect(named(resolveModel(index, 'U2422H Monitor', 'Dell'))).toBe('Dell UltraSharp U2422H Monitor');
    expect(named(resolveModel(index, 'XPS 9315', 'Dell'))).toBe('Dell XPS 13 9315');
    expect(named(resolveModel(index, 'Galaxy S20 FE (SM-G781B)', 'Samsung'))).toBe('Samsung Galaxy S20 FE 5G');
  });

  it('resolves a model without its generation to its family, never to one generation', () => {
    const family = (model: string, brand: string) => {
      const r = resolveModel(index, model, brand);
      return r?.kind === 'family' ? { family: r.family, devices: r.candidates.map((e) => e.name) } : named(r);
    };
    const e14 = catalogue.filter((e) => /^Lenovo ThinkPad E14 Gen \d+ (?:Intel|AMD)$/.test(e.name)).map((e) => e.name);
    expect(e14.length).toBeGreaterThanOrEqual(2);
    expect(family('ThinkPad E14', 'Lenovo')).toEqual({ family: 'Lenovo ThinkPad E14', devices: e14 });
    expect(family('E14', 'Lenovo')).toEqual({ family: 'Lenovo ThinkPad E14', devices: e14 });
    expect(family('EliteBook 840 Notebook PC', 'HP')).toEqual({
      family: 'HP EliteBook 840',
      devices: catalogue.filter((e) => /^HP EliteBook 840 G\d+$/.test(e.name)).map((e) => e.name),
    });
    // a generation the catalogue lacks, a processor (variants), a line without a model number: no family
    expect(family('ThinkPad E14 Gen 9', 'Lenovo')).toBe('none');
    expect(family('ThinkPad E14 AMD', 'Lenovo')).toBe('none');
    expect(family('ThinkPad', 'Lenovo')).toBe('none');
    expect(family('OptiPlex Micro', 'Dell')).toBe('none');
  });

  it('never resolves a generated unknown model, whatever suffix it carries (0 wrong matches)', () => {
    const seen = numberRuns(catalogue);
    const wrong: string[] = [];
    let asked = 0;
    // Every 10th device keeps the file fast; TYPED_NAMES_FULL=1 asks all (10,648 strings, about 8 s).
    const stride = process.env.TYPED_NAMES_FULL ? 1 : 10;
    for (const e of catalogue.filter((_, i) => i % stride === 0)) {
      const unknown = unknownModel(modelPart(e), seen);
      if (!unknown) continue;
      for (const suffix of [...(SUFFIXES[e.category] ?? []), ...SUFFIXES['*']!]) {
        const model = `${unknown}${suffix}`;
        asked++;
        const r = resolveModel(index, model, e.brand);
        if (r) wrong.push(`${e.brand} ${model} → ${named(r)}`);
      }
      // screen size first, as Apple and HP write it
      asked++;
      const r = resolveModel(index, `13-inch ${unknown}`, e.brand);
      if (r) wrong.push(`${e.brand} 13-inch ${unknown} → ${named(r)}`);
    }
    console.log(
      `generated unknown models with typed suffixes: ${asked} asked, ${wrong.length} resolved${wrong.length ? `:\n  ${wrong.slice(0, 20).join('\n  ')}` : ''}`,
    );
    expect(asked).toBeGreaterThan(process.env.TYPED_NAMES_FULL ? 10_000 : 1_000);
    expect(wrong).toEqual([]);
  }, 60_000);
});
