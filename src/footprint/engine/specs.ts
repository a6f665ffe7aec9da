/**
 * Spec resolution: supplied specs over category defaults, and geometric helpers.
 */
import { usableReleaseYear } from './brand.ts';
import { BATTERY_WH_PER_KG } from './constants.ts';
import type { CategoryDefinition, DeviceSpecs, ScreenType, StorageType, TypicalConfiguration } from './types.ts';
import { SCREEN_TYPES, SPEC_FIELDS, STORAGE_TYPES } from './types.ts';

export interface ResolvedSpecs {
  weight_kg: number;
  screen_size_inch: number;
  screen_type: ScreenType;
  processor_tdp_w: number;
  ram_gb: number;
  storage_gb: number;
  storage_type: StorageType;
  battery_wh: number;
  typical_consumption_kwh: number | null;
  /** fields taken from the category defaults (or, for ram_gb and storage_gb, its typical configuration) */
  defaulted: (keyof DeviceSpecs)[];
  /** release year of the category's typical configuration that filled ram_gb or storage_gb, else null */
  typical_year: number | null;
  /** true when an unstated weight_kg was scaled from the category default with the stated screen (unstatedWeight) */
  weight_from_screen: boolean;
  /** kg an unstated weight_kg carries for a stated battery beyond the category's default one (unstatedWeight), else 0 */
  weight_battery_kg: number;
}

const usable = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function isScreenType(v: unknown): v is ScreenType {
  return typeof v === 'string' && (SCREEN_TYPES as readonly string[]).includes(v);
}

export function isStorageType(v: unknown): v is StorageType {
  return typeof v === 'string' && (STORAGE_TYPES as readonly string[]).includes(v);
}

/**
 * The category's typical memory and storage for a release year: the table's entry of the nearest
 * year (the earlier on a tie), or of its middle year when the year is missing or unusable. Null for
 * a category without a table. Manufacturers' sheets almost never state memory, so the fitted level
 * is that of a typical device of its year; a fixed 16 GB / 512 GB would move a 2019 laptop's
 * published 8 GB / 256 GB away from that level.
 */
export function typicalConfiguration(category: CategoryDefinition, releaseYear?: number): (TypicalConfiguration & { year: number }) | null {
  const table = category.typical_configuration;
  const years = table
    ? Object.keys(table)
        .map(Number)
        .sort((a, b) => a - b)
    : [];
  if (!table || years.length === 0) return null;
  const y = usableReleaseYear(releaseYear);
  const year =
    y === null
      ? (years[Math.floor((years.length - 1) / 2)] as number)
      : years.reduce((best, c) => (Math.abs(c - y) < Math.abs(best - y) ? c : best));
  return { ...(table[String(year)] as TypicalConfiguration), year };
}

/** The fields of a server's configuration that its category's sheet configuration fills. */
export const SHEET_CONFIGURATION_FIELDS = ['ram_gb', 'storage_gb', 'storage_type'] as const;
type SheetField = (typeof SHEET_CONFIGURATION_FIELDS)[number];

/**
 * Servers: for the memory, storage and storage type `specs` does not state, the configuration the
 * category's manufacturer footprint sheets assume (`sheet_configuration`, the configuration the server
 * group is fitted on); nothing for a category without one. The lookup chain fills a server's unstated
 * configuration with it, in place of the catalogue's chosen configuration and the category defaults.
 */
export function sheetConfigurationFill(category: CategoryDefinition, specs: DeviceSpecs): Pick<DeviceSpecs, SheetField> {
  const sheet = category.sheet_configuration;
  const fill: Pick<DeviceSpecs, SheetField> = {};
  if (!sheet) return fill;
  if (!usable(specs.ram_gb)) fill.ram_gb = sheet.ram_gb;
  if (!usable(specs.storage_gb)) fill.storage_gb = sheet.storage_gb;
  if (!isStorageType(specs.storage_type)) fill.storage_type = sheet.storage_type;
  return fill;
}

/** Where a server's unstated memory and storage come from, for data_sources. */
export function sheetConfigurationNote(category: CategoryDefinition): string {
  const c = category.sheet_configuration;
  return c
    ? `the configuration manufacturers' footprint sheets of ${category.id} products assume (${c.ram_gb} GB, ${c.storage_gb} GB ${c.storage_type}: medians of ${c.sheets} sheets)`
    : '';
}

/** Screen sizes are taken within this factor of the category's default screen when they scale its weight. */
const SCREEN_RATIO_BOUNDS: [number, number] = [0.25, 4];
/** An estimated weight stays within this factor of the category's default weight, below its heaviest real product. */
const WEIGHT_RATIO_BOUNDS: [number, number] = [0.25, 16];

/**
 * The weight the engine takes for a product whose weight is not known, from the screen size and
 * battery stated (null where not stated):
 * - where the screen sets the size (`weight_screen_exponent`), the default weight x (screen /
 *   default screen)^exponent: a 34-inch monitor is heavier than a 24-inch one, and at a fixed weight
 *   a larger panel would leave less housing, so a larger screen could lower the footprint;
 * - plus the mass of the battery beyond the category's default one (less for a smaller one): the
 *   default weight is that of a product with the default battery, and a UPS with four times the
 *   lead-acid battery in the same weight came out lower.
 * Bounded to 0.25..16 x the default weight and to the category's heaviest real product.
 */
export function unstatedWeight(
  category: CategoryDefinition,
  screenInch: number | null,
  batteryWh: number | null,
): { kg: number; from_screen: boolean; battery_kg: number } {
  const d = category.defaults;
  const exponent = category.parameters.weight_screen_exponent;
  const fromScreen = exponent !== undefined && d.screen_size_inch > 0 && screenInch !== null && screenInch > 0;
  const ratio = fromScreen ? Math.min(SCREEN_RATIO_BOUNDS[1], Math.max(SCREEN_RATIO_BOUNDS[0], screenInch / d.screen_size_inch)) : 1;
  const battery_kg =
    batteryWh !== null ? (batteryWh - d.battery_wh) / BATTERY_WH_PER_KG[category.parameters.production.battery_chemistry] : 0;
  const kg = d.weight_kg * ratio ** (exponent ?? 0) + battery_kg;
  const bounded = Math.min(
    category.parameters.limits.max_weight_kg,
    d.weight_kg * WEIGHT_RATIO_BOUNDS[1],
    Math.max(d.weight_kg * WEIGHT_RATIO_BOUNDS[0], kg),
  );
  return { kg: bounded, from_screen: fromScreen, battery_kg };
}

/**
 * Merges specs over the category defaults; unstated memory and storage take the category's typical
 * configuration of the release year where it has one, and an unstated weight follows a stated screen
 * and battery (unstatedWeight). Non-finite or negative numbers count as missing.
 */
export function resolveSpecs(category: CategoryDefinition, specs: DeviceSpecs, releaseYear?: number): ResolvedSpecs {
  const d = category.defaults;
  const typical = typicalConfiguration(category, releaseYear);
  let typicalYear: number | null = null;
  const defaulted: (keyof DeviceSpecs)[] = [];
  const num = (k: Exclude<keyof DeviceSpecs, 'screen_type' | 'storage_type' | 'typical_consumption_kwh'>): number => {
    const v = specs[k];
    if (usable(v)) return v;
    defaulted.push(k);
    if (typical && (k === 'ram_gb' || k === 'storage_gb')) {
      typicalYear = typical.year;
      return typical[k];
    }
    return d[k];
  };
  const defaultOf = <K extends 'screen_type' | 'storage_type'>(k: K): (typeof d)[K] => {
    defaulted.push(k);
    return d[k];
  };
  const screen_size_inch = num('screen_size_inch');
  const screen_type = isScreenType(specs.screen_type) ? specs.screen_type : defaultOf('screen_type');
  const processor_tdp_w = num('processor_tdp_w');
  const ram_gb = num('ram_gb');
  const storage_gb = num('storage_gb');
  const storage_type = isStorageType(specs.storage_type) ? specs.storage_type : defaultOf('storage_type');
  const battery_wh = num('battery_wh');
  const statedWeight = usable(specs.weight_kg) && specs.weight_kg > 0 ? specs.weight_kg : null;
  const estimated =
    statedWeight === null
      ? unstatedWeight(
          category,
          defaulted.includes('screen_size_inch') ? null : screen_size_inch,
          defaulted.includes('battery_wh') ? null : battery_wh,
        )
      : null;
  if (estimated) defaulted.unshift('weight_kg');
  const typicalKwh = usable(specs.typical_consumption_kwh) ? specs.typical_consumption_kwh : null;
  if (typicalKwh === null) defaulted.push('typical_consumption_kwh');
  return {
    weight_kg: statedWeight ?? estimated!.kg,
    screen_size_inch,
    screen_type,
    processor_tdp_w,
    ram_gb,
    storage_gb,
    storage_type,
    battery_wh,
    typical_consumption_kwh: typicalKwh,
    defaulted,
    typical_year: typicalYear,
    weight_from_screen: estimated?.from_screen ?? false,
    weight_battery_kg: estimated?.battery_kg ?? 0,
  };
}

/** Number of spec fields present (finite numbers >= 0, valid enum strings). */
export function countSuppliedSpecs(specs: DeviceSpecs): number {
  let n = 0;
  for (const k of SPEC_FIELDS) {
    const v = specs[k];
    if (k === 'screen_type') n += isScreenType(v) ? 1 : 0;
    else if (k === 'storage_type') n += isStorageType(v) ? 1 : 0;
    else n += usable(v) ? 1 : 0;
  }
  return n;
}

const SQ_INCH_TO_M2 = 0.00064516;

/** Active area of a screen from its diagonal and aspect ratio (width / height), m2. */
export function screenAreaM2(diagonalInch: number, aspectRatio: number): number {
  if (!(diagonalInch > 0)) return 0;
  const r = aspectRatio > 0 ? aspectRatio : 16 / 9;
  return diagonalInch * diagonalInch * (r / (1 + r * r)) * SQ_INCH_TO_M2;
}
