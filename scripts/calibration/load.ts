/**
 * Shared loader of the calibration set (manufacturer product carbon footprints, Boavizta
 * environmental-footprint-data, ODbL). Reads ../shared/calibration/manufacturer-pcf.csv at run
 * time; nothing of it is copied into the project.
 *
 * - maps the sheet's category/subcategory (+ specs) to one of our 48 categories;
 * - maps its columns to DeviceSpecs ('SSD 256GB', 'x2 1TB 3.5in HDD', memory, number_cpu, yearly_tec);
 * - cleans specs with the engine's own validators (an absurd value counts as missing);
 * - maps use_location (EU/US/WW/Worldwide/North America/empty) to a grid factor from @tgwf/co2.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { normaliseBrand, yearOfDate } from '../../src/footprint/engine/brand.ts';
import { getCategory } from '../../src/footprint/engine/categories.ts';
import { countSuppliedSpecs } from '../../src/footprint/engine/specs.ts';
import type { DeviceSpecs, FieldProblem, StorageType } from '../../src/footprint/engine/types.ts';
import { outsideRealRange } from '../../src/footprint/engine/limits.ts';
import { problemsOf } from '../../src/validation/schemas.ts';
import { deviceSpecs } from '../../src/footprint/inputs.ts';
import { readNameHints } from '../../src/catalogue/name-hints.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CALIBRATION_PATH = resolve(REPO_ROOT, '../shared/calibration/manufacturer-pcf.csv');

export interface CalibrationRow {
  /** 1-based data row number in the file */
  index: number;
  /** key that keeps rows of the same PCF document in the same cross-validation fold */
  group_key: string;
  source_subcategory: string;
  category_id: string;
  /** normalised manufacturer (normaliseBrand of the sheet's manufacturer column), null when empty */
  brand: string | null;
  /** year of the sheet's report_date (stands for the release year), null when missing */
  release_year: number | null;
  /** the sheet's server_type column (rack, tower, blade, ...), lower case */
  server_type: string;
  specs: DeviceSpecs;
  supplied_spec_count: number;
  rejected_specs: FieldProblem[];
  gwp_total: number;
  use_ratio: number | null;
  /** gwp_total x (1 - use_ratio), null without a use ratio */
  embodied: number | null;
  lifetime: number | null;
  use_location: string;
  grid_factor: number;
  /** true when use_location was empty and the world average was assumed */
  grid_assumed: boolean;
  transport_ratio: number | null;
  eol_ratio: number | null;
  error_ratio: number | null;
}

export interface Exclusion {
  index: number;
  subcategory: string;
  reason: string;
}

const require = createRequire(import.meta.url);

/** tgwf keys for the PCF sheets' use locations (g CO2e/kWh in the package, kg here). */
export const USE_LOCATION_KEYS: Record<string, string> = {
  EU: 'EU',
  US: 'USA',
  WW: 'WORLD',
  WORLDWIDE: 'WORLD',
  'NORTH AMERICA': 'NORTH AMERICA',
  '': 'WORLD',
};

let gridCache: Record<string, number> | null = null;
export function tgwfAverageIntensity(): Record<string, number> {
  if (!gridCache) {
    const mod = require('@tgwf/co2/data') as { averageIntensity?: { data?: Record<string, number> } };
    const data = mod.averageIntensity?.data;
    if (!data) throw new Error('@tgwf/co2/data has no averageIntensity.data');
    gridCache = data;
  }
  return gridCache;
}

export function gridFactorFor(useLocation: string): { factor: number; key: string; assumed: boolean } {
  const loc = useLocation.trim().toUpperCase();
  const key = USE_LOCATION_KEYS[loc] ?? (loc.length === 3 ? loc : 'WORLD');
  const g = tgwfAverageIntensity()[key];
  if (g === undefined) throw new Error(`@tgwf/co2 has no average intensity for ${key}`);
  return { factor: g / 1000, key, assumed: loc === '' || USE_LOCATION_KEYS[loc] === undefined };
}

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const t = s.trim();
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
};

/**
 * 'SSD 256GB', '256GB', '64GB SSD', '1TB', 'x2 1TB 3.5in HDD', 'x4 1TB 2.5in HDD   x2 300GB 2.5in HDD',
 * '14TB HDD', '300 Go', '1 SSD' (a drive count without capacity), '26ppm' (not storage).
 */
export function parseStorage(field: string): { gb?: number; type?: StorageType } {
  const s = field.trim();
  if (s === '' || /ppm/i.test(s)) return {};
  let gb = 0;
  const re = /(?:x(\d+)\s+)?(\d+(?:\.\d+)?)\s*(TB|GB|Go|To)\b/gi;
  for (const m of s.matchAll(re)) {
    const count = m[1] ? Number(m[1]) : 1;
    const v = Number(m[2]);
    const unit = (m[3] ?? '').toUpperCase();
    gb += count * v * (unit === 'TB' || unit === 'TO' ? 1000 : 1);
  }
  const type: StorageType | undefined = /HDD/i.test(s) ? 'hdd' : /SSD/i.test(s) ? 'ssd' : undefined;
  const out: { gb?: number; type?: StorageType } = {};
  if (gb > 0) out.gb = gb;
  if (type && (gb > 0 || /SSD|HDD/i.test(s))) out.type = type;
  return out;
}

/** Forms of notebook the sheets' subcategories do not tell apart ("Laptop"), but their names do. */
const NOTEBOOK_FORMS: ReadonlySet<string> = new Set(['chromebook', 'convertible']);

/**
 * A notebook's category: the form its name's words state (a Chromebook, a 2-in-1; read as the API
 * reads a name, so the fit sees each sheet under the category a caller states for it), else a
 * mobile workstation from 2.6 kg, else a laptop.
 */
function notebookCategory(name: string, weight: number | undefined): string {
  const named = readNameHints(name).category?.id;
  if (named !== undefined && NOTEBOOK_FORMS.has(named)) return named;
  return weight !== undefined && weight >= 2.6 ? 'mobile_workstation' : 'laptop';
}

/** Maps the sheet's subcategory (and specs and name) to our category id; null when no category fits. */
export function mapCategory(subcategory: string, specs: DeviceSpecs, serverType: string, name = ''): string | null {
  const sub = subcategory.trim().toLowerCase();
  const screen = specs.screen_size_inch ?? 0;
  const weight = specs.weight_kg;
  switch (sub) {
    case 'laptop':
      return notebookCategory(name, weight);
    case 'desktop':
      // the sheet files some notebooks (13-17 inch, < 4 kg) and the all-in-ones under Desktop
      if (screen >= 18) return 'all_in_one';
      if (screen >= 10 && (weight === undefined || weight < 4)) return notebookCategory(name, weight);
      if (weight !== undefined && weight >= 15) return 'workstation';
      if (weight !== undefined && weight < 3) return 'mini_pc';
      return 'desktop';
    case 'workstation':
      return 'workstation';
    case 'thin client':
      return 'thin_client';
    case 'monitor':
      return screen >= 50 ? 'interactive_display' : 'monitor';
    case 'smartphone':
      return 'smartphone';
    case 'tablet':
      return 'tablet';
    case 'server':
    case 'converged':
    case 'converged edge': {
      const t = serverType.trim().toLowerCase();
      if (t === 'blade') return 'blade_server';
      if (t === 'tower') return 'tower_server';
      return 'server';
    }
    case 'san/nas':
      return 'storage_array';
    case 'printer':
      return /multi/i.test(serverType) ? 'multifunction_printer' : 'printer';
    case 'gaming':
      return 'game_console';
    case 'hard drive':
      return specs.storage_type === 'ssd' || /ssd/i.test(serverType) ? 'external_ssd' : 'external_hdd';
    case 'network':
      return 'router';
    default:
      return null; // IoT (speakers, thermostats, cameras), set-top boxes: no matching category
  }
}

const MOBILE_FLASH = new Set(['smartphone', 'tablet', 'smartwatch', 'feature_phone', 'e_reader']);

export interface LoadResult {
  path: string;
  rows: CalibrationRow[];
  excluded: Exclusion[];
}

export function calibrationAvailable(path = CALIBRATION_PATH): boolean {
  return existsSync(path);
}

/** The raw records of the CSV file (one object per data row, keyed by column name). */
export function readCalibrationRecords(path = CALIBRATION_PATH): Record<string, string>[] {
  const text = readFileSync(path, 'utf8');
  return parse(text, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true }) as Record<string, string>[];
}

/**
 * The specs a row publishes, as the sheet gives them (weight, screen, storage, memory, yearly
 * energy), before any cleaning: what a user would type when asking for that product.
 */
export function publishedSpecs(r: Record<string, string>): DeviceSpecs {
  const specs: DeviceSpecs = {};
  const w = num(r.weight);
  if (w !== null && w > 0) specs.weight_kg = w;
  const sc = num(r.screen_size);
  if (sc !== null && sc > 0) specs.screen_size_inch = sc;
  const st = parseStorage(r.hard_drive ?? '');
  if (st.gb !== undefined) specs.storage_gb = st.gb;
  if (st.type !== undefined) specs.storage_type = st.type;
  const ram = num(r.memory);
  if (ram !== null && ram > 0) specs.ram_gb = ram;
  const tec = num(r.yearly_tec);
  if (tec !== null && tec > 0) specs.typical_consumption_kwh = tec;
  return specs;
}

export function loadCalibration(path = CALIBRATION_PATH): LoadResult {
  const records = readCalibrationRecords(path);
  const rows: CalibrationRow[] = [];
  const excluded: Exclusion[] = [];
  records.forEach((r, i) => {
    const index = i + 1;
    const subcategory = (r.subcategory ?? '').trim();
    const total = num(r.gwp_total);
    if (total === null || total <= 0) {
      excluded.push({ index, subcategory, reason: 'no gwp_total' });
      return;
    }
    const specs = publishedSpecs(r);
    const sc = num(r.screen_size);

    const categoryId = mapCategory(subcategory, specs, r.server_type ?? '', r.name ?? '');
    if (categoryId === null) {
      excluded.push({ index, subcategory, reason: 'no matching category' });
      return;
    }
    const category = getCategory(categoryId);
    if (!category) throw new Error(`unknown category ${categoryId}`);

    // desktops and servers: a screen of 0 means "no screen", which is the category default
    if (sc === 0 && category.defaults.screen_size_inch === 0) specs.screen_size_inch = 0;
    // sockets -> processor TDP at the category's per-socket default
    const cpus = num(r.number_cpu);
    if (cpus !== null && cpus > 0 && category.defaults.processor_tdp_w > 0) {
      specs.processor_tdp_w = cpus * (category.defaults.processor_tdp_w / category.defaults.processor_count);
    }
    // phones and tablets: the sheets' "SSD" is soldered flash (UFS/eMMC class)
    if (MOBILE_FLASH.has(categoryId) && specs.storage_type === 'ssd') specs.storage_type = 'emmc';

    // clean with the device spec schema: an absurd value is dropped and reported
    // (refused values, and values beyond the range of real products of the category: sheet slips)
    const refused = problemsOf(deviceSpecs(category), specs);
    const rejected = [...refused, ...outsideRealRange(specs, category).filter((p) => !refused.some((r) => r.field === p.field))];
    for (const p of rejected) delete (specs as Record<string, unknown>)[p.field];

    const useRatio = num(r.gwp_use_ratio);
    const validUse = useRatio !== null && useRatio >= 0 && useRatio < 1 ? useRatio : null;
    const lifetime = num(r.lifetime);
    const useLocation = (r.use_location ?? '').trim();
    const grid = gridFactorFor(useLocation);
    rows.push({
      index,
      group_key: (r.sources_hash ?? '').trim() || (r.sources ?? '').trim() || (r.name ?? `row${index}`),
      source_subcategory: subcategory,
      category_id: categoryId,
      brand: normaliseBrand(r.manufacturer),
      release_year: yearOfDate(r.report_date),
      server_type: (r.server_type ?? '').trim().toLowerCase(),
      specs,
      supplied_spec_count: countSuppliedSpecs(specs),
      rejected_specs: rejected,
      gwp_total: total,
      use_ratio: validUse,
      embodied: validUse === null ? null : total * (1 - validUse),
      lifetime: lifetime !== null && lifetime > 0 ? lifetime : null,
      use_location: useLocation,
      grid_factor: grid.factor,
      grid_assumed: grid.assumed,
      transport_ratio: num(r.gwp_transport_ratio),
      eol_ratio: num(r.gwp_eol_ratio),
      error_ratio: num(r.gwp_error_ratio),
    });
  });
  return { path, rows, excluded };
}

/** Deterministic fold (0..k-1) from the document key: FNV-1a 32-bit hash. */
export function foldOf(key: string, k = 5): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % k;
}

/** Main categories of the accuracy target, by the sheet's subcategory label. */
export const MAIN_SUBCATEGORIES: Record<string, string> = {
  Laptop: 'laptops',
  Desktop: 'desktops',
  Monitor: 'monitors',
  Smartphone: 'smartphones',
  Tablet: 'tablets',
  Server: 'servers',
};
