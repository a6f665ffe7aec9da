/**
 * Spec resolution: supplied specs over category defaults, and geometric helpers.
 */
import type { CategoryDefinition, DeviceSpecs, ScreenType, StorageType } from './types.ts';
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
  /** fields taken from the category defaults */
  defaulted: (keyof DeviceSpecs)[];
}

const usable = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function isScreenType(v: unknown): v is ScreenType {
  return typeof v === 'string' && (SCREEN_TYPES as readonly string[]).includes(v);
}

export function isStorageType(v: unknown): v is StorageType {
  return typeof v === 'string' && (STORAGE_TYPES as readonly string[]).includes(v);
}

/** Merges specs over the category defaults. Non-finite or negative numbers count as missing. */
export function resolveSpecs(category: CategoryDefinition, specs: DeviceSpecs): ResolvedSpecs {
  const d = category.defaults;
  const defaulted: (keyof DeviceSpecs)[] = [];
  const num = (k: Exclude<keyof DeviceSpecs, 'screen_type' | 'storage_type' | 'typical_consumption_kwh'>): number => {
    const v = specs[k];
    if (usable(v)) return v;
    defaulted.push(k);
    return d[k];
  };
  const weight = specs.weight_kg !== undefined && usable(specs.weight_kg) && specs.weight_kg > 0 ? specs.weight_kg : (defaulted.push('weight_kg'), d.weight_kg);
  const screen_size_inch = num('screen_size_inch');
  const screen_type = isScreenType(specs.screen_type) ? specs.screen_type : (defaulted.push('screen_type'), d.screen_type);
  const processor_tdp_w = num('processor_tdp_w');
  const ram_gb = num('ram_gb');
  const storage_gb = num('storage_gb');
  const storage_type = isStorageType(specs.storage_type) ? specs.storage_type : (defaulted.push('storage_type'), d.storage_type);
  const battery_wh = num('battery_wh');
  const typical = usable(specs.typical_consumption_kwh) ? specs.typical_consumption_kwh : null;
  if (typical === null) defaulted.push('typical_consumption_kwh');
  return {
    weight_kg: weight, screen_size_inch, screen_type, processor_tdp_w, ram_gb, storage_gb, storage_type, battery_wh,
    typical_consumption_kwh: typical, defaulted,
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
