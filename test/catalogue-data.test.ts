/**
 * Validates the built-in device catalogue in data/catalogue/*.json.
 *
 * The catalogue is plain data (see docs/catalogue.md); this test is its schema
 * and sanity gate: field presence, enums, unit ranges, uniqueness of part
 * numbers per brand and alias/mpn collisions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveSpecSources, SPEC_BASES } from '../src/catalogue/spec-provenance.ts';
import { findFamilyTemplates, MAX_SHARED } from '../scripts/catalogue/family-templates.ts';
import { CATEGORIES } from '../src/footprint/engine/categories.ts';
import { logLogSlope, median } from '../scripts/calibration/model.ts';

const CATEGORY_IDS = [
  'laptop',
  'desktop',
  'all_in_one',
  'workstation',
  'thin_client',
  'monitor',
  'tablet',
  'smartphone',
  'server',
  'printer',
  'network_switch',
  'router',
  'access_point',
  'nas',
  'external_hdd',
  'projector',
  'docking_station',
  'ip_phone',
  'game_console',
  'chromebook',
  'convertible',
  'rugged_laptop',
  'mini_pc',
  'mobile_workstation',
  'tower_server',
  'blade_server',
  'storage_array',
  'firewall',
  'ups',
  'kvm_switch',
  'multifunction_printer',
  'label_printer',
  'scanner',
  'webcam',
  'headset',
  'keyboard',
  'mouse',
  'video_conferencing',
  'interactive_display',
  'digital_signage',
  'television',
  'smartwatch',
  'feature_phone',
  'e_reader',
  'external_ssd',
  'modem',
  'pos_terminal',
  'barcode_scanner',
] as const;

const SCREEN_TYPES = ['lcd', 'oled', 'ips', 'tn', 'va', 'mini_led'] as const;
const STORAGE_TYPES = ['ssd', 'hdd', 'emmc', 'nvme'] as const;

/** Inclusive numeric ranges per spec key. */
const NUMERIC_RANGES: Record<string, readonly [number, number]> = {
  weight_kg: [0.01, 1500],
  screen_size_inch: [1, 120],
  processor_tdp_w: [1, 1000],
  ram_gb: [0.5, 12288],
  storage_gb: [1, 2_000_000],
  battery_wh: [1, 200],
  typical_consumption_kwh: [0.1, 20_000],
};
const SPEC_KEYS = new Set([...Object.keys(NUMERIC_RANGES), 'screen_type', 'storage_type']);
const ENTRY_KEYS = new Set(['brand', 'mpn', 'name', 'category', 'release_year', 'aliases', 'specs', 'spec_sources', 'pcf', 'source']);
const SPEC_SOURCE_KEYS = new Set(['basis', 'url', 'note']);
const PCF_KEYS = new Set(['total_kg', 'lifetime_years', 'use_location', 'source_url']);

interface CatalogueEntry {
  brand: string;
  mpn: string;
  name: string;
  category: string;
  release_year: number;
  aliases?: string[];
  specs?: Record<string, number | string>;
  spec_sources?: Record<string, { basis: string; url?: string; note?: string }>;
  pcf?: { total_kg: number; lifetime_years?: number; use_location?: string; source_url?: string };
  source: { url?: string; note?: string };
}

interface Loaded {
  file: string;
  index: number;
  entry: CatalogueEntry;
}

const catalogueDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'catalogue');

function loadCatalogue(): { files: string[]; entries: Loaded[] } {
  const files = readdirSync(catalogueDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const entries: Loaded[] = [];
  for (const file of files) {
    const parsed: unknown = JSON.parse(readFileSync(join(catalogueDir, file), 'utf8'));
    if (!Array.isArray(parsed)) throw new Error(`${file}: top level must be an array`);
    parsed.forEach((entry: CatalogueEntry, index) => entries.push({ file, index, entry }));
  }
  return { files, entries };
}

const where = (l: Loaded): string => `${l.file}[${l.index}] ${l.entry?.brand ?? '?'} ${l.entry?.mpn ?? '?'}`;
const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const key = (s: string): string => s.trim().toLowerCase();

describe('built-in device catalogue (data/catalogue/*.json)', () => {
  const { files, entries } = loadCatalogue();

  it('has catalogue files and at least 435 devices; prints the count per category', () => {
    expect(files.length).toBeGreaterThan(0);
    const perCategory = new Map<string, number>();
    for (const { entry } of entries) perCategory.set(entry.category, (perCategory.get(entry.category) ?? 0) + 1);
    const perFile = files.map((f) => `${f}: ${entries.filter((e) => e.file === f).length}`);
    const rows = [...perCategory.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    console.log(
      `catalogue: ${entries.length} devices in ${files.length} files (${perFile.join(', ')})\n` +
        rows.map(([c, n]) => `  ${c.padEnd(22)} ${n}`).join('\n'),
    );
    expect(entries.length).toBeGreaterThanOrEqual(435);
  });

  it('every entry has the required fields with valid values and no unknown keys', () => {
    const problems: string[] = [];
    for (const l of entries) {
      const e = l.entry;
      if (e === null || typeof e !== 'object' || Array.isArray(e)) {
        problems.push(`${where(l)}: not an object`);
        continue;
      }
      for (const k of Object.keys(e)) if (!ENTRY_KEYS.has(k)) problems.push(`${where(l)}: unknown key ${k}`);
      for (const f of ['brand', 'mpn', 'name', 'category'] as const) {
        if (!isNonEmptyString(e[f])) problems.push(`${where(l)}: missing ${f}`);
      }
      if (!(CATEGORY_IDS as readonly string[]).includes(e.category)) problems.push(`${where(l)}: bad category ${e.category}`);
      if (!Number.isInteger(e.release_year) || e.release_year < 1995 || e.release_year > 2026) {
        problems.push(`${where(l)}: bad release_year ${String(e.release_year)}`);
      }
      if (!e.source || typeof e.source !== 'object' || !(isNonEmptyString(e.source.url) || isNonEmptyString(e.source.note))) {
        problems.push(`${where(l)}: source needs a url or a note`);
      } else if (e.source.url !== undefined && !/^https?:\/\/\S+$/.test(e.source.url)) {
        problems.push(`${where(l)}: source.url is not an http(s) URL`);
      }
      if (e.aliases !== undefined) {
        if (!Array.isArray(e.aliases) || !e.aliases.every(isNonEmptyString))
          problems.push(`${where(l)}: aliases must be non-empty strings`);
      }
      if (e.pcf !== undefined) {
        for (const k of Object.keys(e.pcf)) if (!PCF_KEYS.has(k)) problems.push(`${where(l)}: unknown pcf key ${k}`);
        if (typeof e.pcf.total_kg !== 'number' || !(e.pcf.total_kg > 0 && e.pcf.total_kg < 100_000)) {
          problems.push(`${where(l)}: pcf.total_kg out of range`);
        }
        if (e.pcf.lifetime_years !== undefined && !(e.pcf.lifetime_years > 0 && e.pcf.lifetime_years <= 20)) {
          problems.push(`${where(l)}: pcf.lifetime_years out of range`);
        }
        if (!isNonEmptyString(e.pcf.source_url)) problems.push(`${where(l)}: pcf needs a source_url`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('specs use only known keys, valid enums and sane ranges', () => {
    const problems: string[] = [];
    for (const l of entries) {
      const specs = l.entry.specs;
      if (specs === undefined) continue;
      if (specs === null || typeof specs !== 'object' || Array.isArray(specs)) {
        problems.push(`${where(l)}: specs must be an object`);
        continue;
      }
      for (const [k, v] of Object.entries(specs)) {
        if (!SPEC_KEYS.has(k)) {
          problems.push(`${where(l)}: unknown spec ${k}`);
        } else if (k === 'screen_type') {
          if (!(SCREEN_TYPES as readonly unknown[]).includes(v)) problems.push(`${where(l)}: bad screen_type ${String(v)}`);
        } else if (k === 'storage_type') {
          if (!(STORAGE_TYPES as readonly unknown[]).includes(v)) problems.push(`${where(l)}: bad storage_type ${String(v)}`);
        } else {
          const range = NUMERIC_RANGES[k];
          if (typeof v !== 'number' || !Number.isFinite(v) || range === undefined) {
            problems.push(`${where(l)}: ${k} must be a finite number`);
            continue;
          }
          // A UPS battery string is far larger than a device battery; only the lower bound applies.
          const [lo, hi] = k === 'battery_wh' && l.entry.category === 'ups' ? [1, 100_000] : range;
          if (v < lo || v > hi) problems.push(`${where(l)}: ${k}=${v} outside ${lo}..${hi}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("has no duplicate mpn per brand and no alias that collides with another device's mpn", () => {
    const problems: string[] = [];
    const byBrandMpn = new Map<string, Loaded>();
    const mpnOwners = new Map<string, Loaded[]>();
    for (const l of entries) {
      const k = `${key(l.entry.brand)}|${key(l.entry.mpn)}`;
      const prev = byBrandMpn.get(k);
      if (prev) problems.push(`duplicate mpn: ${where(prev)} and ${where(l)}`);
      else byBrandMpn.set(k, l);
      const owners = mpnOwners.get(key(l.entry.mpn)) ?? [];
      owners.push(l);
      mpnOwners.set(key(l.entry.mpn), owners);
    }
    for (const l of entries) {
      const seen = new Set<string>();
      for (const alias of l.entry.aliases ?? []) {
        const a = key(alias);
        if (seen.has(a)) problems.push(`${where(l)}: alias repeated: ${alias}`);
        seen.add(a);
        for (const other of mpnOwners.get(a) ?? []) {
          if (other !== l) problems.push(`${where(l)}: alias "${alias}" is the mpn of ${where(other)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('every device name is unique within its brand', () => {
    const seen = new Map<string, Loaded>();
    const problems: string[] = [];
    for (const l of entries) {
      const k = `${key(l.entry.brand)}|${key(l.entry.name)}`;
      const prev = seen.get(k);
      if (prev) problems.push(`duplicate name: ${where(prev)} and ${where(l)}`);
      else seen.set(k, l);
    }
    expect(problems).toEqual([]);
  });

  it('spec_sources name only present spec fields, each with a basis from the closed vocabulary', () => {
    const problems: string[] = [];
    for (const l of entries) {
      const listed = l.entry.spec_sources;
      if (listed === undefined) continue;
      for (const [field, s] of Object.entries(listed)) {
        if (l.entry.specs?.[field] === undefined) problems.push(`${where(l)}: spec_sources.${field} but no specs.${field}`);
        for (const k of Object.keys(s)) if (!SPEC_SOURCE_KEYS.has(k)) problems.push(`${where(l)}: spec_sources.${field} unknown key ${k}`);
        if (!(SPEC_BASES as readonly string[]).includes(s.basis))
          problems.push(`${where(l)}: spec_sources.${field}.basis ${String(s.basis)}`);
        if (s.url !== undefined && !/^https?:\/\/\S+$/.test(s.url))
          problems.push(`${where(l)}: spec_sources.${field}.url is not an http(s) URL`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every spec value resolves to a basis and a source; typical configuration is not called published', () => {
    const problems: string[] = [];
    const perBasis = new Map<string, number>();
    for (const l of entries) {
      // The basis vocabulary of listed sources is checked by the test above.
      const resolved = resolveSpecSources(
        l.entry.specs ?? {},
        l.entry.spec_sources as Parameters<typeof resolveSpecSources>[1],
        l.entry.source,
      );
      for (const field of Object.keys(l.entry.specs ?? {})) {
        const s = resolved[field];
        if (!s || !(SPEC_BASES as readonly string[]).includes(s.basis) || !(s.url || s.note))
          problems.push(`${where(l)}: ${field} has no basis or source`);
        else perBasis.set(`${field} ${s.basis}`, (perBasis.get(`${field} ${s.basis}`) ?? 0) + 1);
        if (['ram_gb', 'storage_gb', 'processor_tdp_w'].includes(field) && s?.basis === 'published')
          problems.push(`${where(l)}: ${field} is a configuration`);
      }
    }
    console.log(
      [...perBasis]
        .sort()
        .map(([k, n]) => `  ${k.padEnd(36)} ${n}`)
        .join('\n'),
    );
    expect(problems).toEqual([]);
    // Phone and Samsung tablet batteries are rated mAh x nominal voltage: derived, not published Wh.
    expect(perBasis.get('battery_wh derived')).toBeGreaterThanOrEqual(160);
  });

  it(`no family template: at most ${MAX_SHARED} entries of one family share a weight and 3 other spec fields`, () => {
    const templates = files.flatMap((file) =>
      findFamilyTemplates(entries.filter((l) => l.file === file).map((l) => l.entry)).map(
        (t) => `${file}: ${t.family} weight_kg=${t.weight_kg} copied to ${t.copies.join(', ')}`,
      ),
    );
    expect(templates).toEqual([]);
  });

  it('the family-template check catches a copied weight but not a shared configuration', () => {
    const model = (n: number, specs: Record<string, number | string>) => ({
      brand: 'Dell',
      category: 'mini_pc',
      name: `Dell OptiPlex ${n} Micro`,
      specs,
    });
    const configuration = { processor_tdp_w: 35, ram_gb: 8, storage_gb: 256, storage_type: 'ssd' };
    const copied = [3060, 3070, 3080, 3090].map((n) => model(n, { weight_kg: 1.2, ...configuration }));
    expect(findFamilyTemplates(copied).map((t) => [t.weight_kg, t.copies.length])).toEqual([[1.2, 4]]);
    expect(findFamilyTemplates(copied.slice(0, MAX_SHARED))).toEqual([]);
    const ownWeights = [3060, 3070, 3080, 3090].map((n, i) => model(n, { weight_kg: 1.1 + i / 10, ...configuration }));
    expect(findFamilyTemplates(ownWeights)).toEqual([]);
    // Word order and "Small Form Factor" do not hide a family member.
    const renamed = [...copied.slice(0, 3), { ...copied[0]!, name: 'Dell OptiPlex Micro 7010' }];
    expect(findFamilyTemplates(renamed)).toHaveLength(1);
  });

  it("the catalogue's laptops grow in weight with their screen as the engine assumes for an unstated weight", () => {
    // measured 2026-11-28: 2.11 over 325 laptops stating both (docs/methodology.md section 2)
    const points = entries
      .filter(
        ({ entry }) =>
          entry.category === 'laptop' && typeof entry.specs?.weight_kg === 'number' && typeof entry.specs.screen_size_inch === 'number',
      )
      .map(({ entry }) => ({ x: Number(entry.specs!.screen_size_inch), y: Number(entry.specs!.weight_kg) }));
    expect(points.length).toBeGreaterThan(200);
    const exponent = CATEGORIES.find((c) => c.id === 'laptop')!.parameters.weight_screen_exponent!;
    expect(Math.abs(logLogSlope(points) - exponent)).toBeLessThanOrEqual(0.5);
  });

  it("each category's typical configuration is the catalogue's median memory and storage per release year", () => {
    const withTable = CATEGORIES.filter((c) => c.typical_configuration !== undefined);
    // the categories of the calibration groups whose sheets rarely state memory (docs/methodology.md section 2)
    expect(withTable.map((c) => c.id).sort()).toEqual([
      'all_in_one',
      'chromebook',
      'convertible',
      'desktop',
      'laptop',
      'mini_pc',
      'mobile_workstation',
      'smartphone',
      'tablet',
      'workstation',
    ]);
    for (const c of withTable) expect(Object.keys(c.typical_configuration!).length, c.id).toBeGreaterThanOrEqual(3);
    for (const c of withTable) {
      const byYear = new Map<number, { ram: number[]; storage: number[] }>();
      for (const { entry } of entries) {
        const s = entry.specs;
        if (entry.category !== c.id || typeof s?.ram_gb !== 'number' || typeof s.storage_gb !== 'number') continue;
        const y = byYear.get(entry.release_year) ?? { ram: [], storage: [] };
        y.ram.push(s.ram_gb);
        y.storage.push(s.storage_gb);
        byYear.set(entry.release_year, y);
      }
      const expected = Object.fromEntries(
        [...byYear]
          .filter(([, v]) => v.ram.length >= 5)
          .sort(([a], [b]) => a - b)
          .map(([year, v]) => [String(year), { ram_gb: median(v.ram), storage_gb: median(v.storage), devices: v.ram.length }]),
      );
      expect(c.typical_configuration, c.id).toEqual(expected);
    }
  });
});
