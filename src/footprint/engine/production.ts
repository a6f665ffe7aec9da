/**
 * Production phase: component-based bottom-up model (literature priors), scaled per calibration
 * group by four fitted multipliers (structure, electronics, memory_storage, display).
 */
import {
  BATTERY_KG_PER_WH,
  BATTERY_WH_PER_KG,
  BOAVIZTA,
  DIE_AREA,
  DISPLAY_KG_PER_M2,
  DRAM_DENSITY_GB_PER_CM2,
  EMMC_BASE_KG,
  MAINBOARD_TDP_EXPONENT,
  MIN_HOUSING_SHARE,
} from './constants.ts';
import type { ComponentShape, ProductionMultipliers } from './parameters.ts';
import type { ResolvedSpecs } from './specs.ts';
import { screenAreaM2 } from './specs.ts';
import type { CategoryDefinition, ScreenType, StorageType } from './types.ts';

export const PRODUCTION_COMPONENTS = [
  'chassis',
  'mainboard',
  'processor',
  'memory',
  'storage',
  'display',
  'battery',
  'power_supply',
  'assembly',
] as const;
export type ProductionComponent = (typeof PRODUCTION_COMPONENTS)[number];
export type ProductionBlock = keyof ProductionMultipliers;

export const COMPONENT_BLOCK: Record<ProductionComponent, ProductionBlock> = {
  chassis: 'structure',
  power_supply: 'structure',
  assembly: 'structure',
  mainboard: 'electronics',
  processor: 'electronics',
  memory: 'memory_storage',
  storage: 'memory_storage',
  battery: 'electronics',
  display: 'display',
};

export type ComponentValues = Record<ProductionComponent, number>;

/** A part of Boavizta's die model in one impact criterion: fixed part + per cm2 of die. */
export interface DieFactor {
  base: number;
  per_die_cm2: number;
}

/** Boavizta's storage model in one impact criterion: flash dies, eMMC base and hard-disk drives. */
export interface StorageFactors {
  flash: DieFactor;
  emmc_base: number;
  hdd_per_drive: number;
}

const GWP_PROCESSOR: DieFactor = { base: BOAVIZTA.cpu_base_kg, per_die_cm2: BOAVIZTA.cpu_per_die_cm2_kg };
const GWP_MEMORY: DieFactor = { base: BOAVIZTA.ram_per_module_kg, per_die_cm2: BOAVIZTA.ram_per_die_cm2_kg };
const GWP_STORAGE: StorageFactors = {
  flash: { base: BOAVIZTA.ssd_base_kg, per_die_cm2: BOAVIZTA.ssd_per_die_cm2_kg },
  emmc_base: EMMC_BASE_KG,
  hdd_per_drive: BOAVIZTA.hdd_per_drive_kg,
};

/** Processor(s): Boavizta die model, die area from TDP per socket. */
export function processorKg(tdpW: number, sockets: number): number {
  return processorImpact(tdpW, sockets, GWP_PROCESSOR);
}

/** processorKg in any criterion whose die-model factors are `f`. */
export function processorImpact(tdpW: number, sockets: number, f: DieFactor): number {
  if (!(tdpW > 0)) return 0;
  const n = Math.max(1, Math.round(sockets));
  const die = Math.min(DIE_AREA.max_cm2, DIE_AREA.base_cm2 + DIE_AREA.per_w_cm2 * (tdpW / n));
  return n * (f.base + f.per_die_cm2 * die);
}

/** Memory: Boavizta RAM model with current DRAM density. */
export function memoryKg(ramGb: number, gbPerModule: number, f: DieFactor = GWP_MEMORY): number {
  if (!(ramGb > 0)) return 0;
  const modules = Math.max(1, Math.ceil(ramGb / Math.max(1, gbPerModule)));
  return memoryModulesKg(modules, ramGb / modules, f);
}

export function memoryModulesKg(modules: number, gbPerModule: number, f: DieFactor = GWP_MEMORY): number {
  if (!(modules > 0) || !(gbPerModule > 0)) return 0;
  return modules * (f.base + f.per_die_cm2 * (gbPerModule / DRAM_DENSITY_GB_PER_CM2));
}

/** Storage by type: flash by die area (Boavizta SSD), HDD per drive. */
export function storageKg(gb: number, type: StorageType, hddGbPerDrive: number, f: StorageFactors = GWP_STORAGE): number {
  if (!(gb > 0)) return 0;
  if (type === 'hdd') return Math.max(1, Math.ceil(gb / Math.max(1, hddGbPerDrive))) * f.hdd_per_drive;
  const base = type === 'emmc' ? f.emmc_base : f.flash.base;
  return base + f.flash.per_die_cm2 * (gb / BOAVIZTA.ssd_density_gb_per_cm2);
}

/** Display panel by area and technology. */
export function displayKg(inches: number, type: ScreenType, category: CategoryDefinition): number {
  const area = screenAreaM2(inches, category.defaults.screen_aspect_ratio);
  return area * DISPLAY_KG_PER_M2[type] * category.parameters.production.display_factor_multiplier;
}

export function batteryKg(wh: number, category: CategoryDefinition): number {
  if (!(wh > 0)) return 0;
  return wh * BATTERY_KG_PER_WH[category.parameters.production.battery_chemistry];
}

/** Mass of the housing: device mass minus display, battery and internal power supply, bounded below. */
export function housingMassKg(category: CategoryDefinition, s: ResolvedSpecs): number {
  const p = category.parameters.production;
  const displayMass = screenAreaM2(s.screen_size_inch, category.defaults.screen_aspect_ratio) * p.display_mass_kg_per_m2;
  const batteryMass = s.battery_wh > 0 ? s.battery_wh / BATTERY_WH_PER_KG[p.battery_chemistry] : 0;
  const psuMass = p.power_supply_external ? 0 : p.power_supply_mass_kg;
  return Math.max(MIN_HOUSING_SHARE * s.weight_kg, s.weight_kg - displayMass - batteryMass - psuMass);
}

export function mainboardKg(category: CategoryDefinition, tdpW: number): number {
  const base = category.parameters.production.mainboard_kg_co2e;
  const d = category.defaults.processor_tdp_w;
  if (!(d > 0)) return base;
  const ratio = Math.min(4, Math.max(0.25, Math.max(tdpW, 0.5) / d));
  return base * ratio ** MAINBOARD_TDP_EXPONENT;
}

export function assemblyKg(weightKg: number): number {
  return Math.min(BOAVIZTA.assembly_server_kg, 0.5 + 0.6 * weightKg);
}

/** Housing: per-kg material model, or the enclosure prior of servers and arrays. */
export function chassisKg(category: CategoryDefinition, s: ResolvedSpecs): number {
  const p = category.parameters.production;
  if (p.chassis_fixed_kg_co2e > 0) {
    const ratio = Math.min(4, Math.max(0.25, s.weight_kg / category.defaults.weight_kg));
    return p.chassis_fixed_kg_co2e * Math.sqrt(ratio);
  }
  return housingMassKg(category, s) * p.chassis_kg_co2e_per_kg;
}

/**
 * Anchored elasticity: anchor x (actual / anchor)^elasticity, where anchor is the component at the
 * group's reference spec (1 = proportional, the physical prior).
 */
export function withElasticity(actual: number, anchor: number, elasticity: number): number {
  if (elasticity === 1 || !(actual > 0) || !(anchor > 0)) return actual;
  return anchor * (actual / anchor) ** elasticity;
}

export const PROPORTIONAL: ComponentShape = {
  mass_elasticity: 1,
  display_area_elasticity: 1,
  reference_weight_kg: null,
  reference_screen_inch: null,
};

export function chassisAnchorKg(category: CategoryDefinition, s: ResolvedSpecs, shape: ComponentShape): number {
  return chassisKg(category, { ...s, weight_kg: shape.reference_weight_kg ?? category.defaults.weight_kg });
}

export function displayAnchorKg(category: CategoryDefinition, type: ScreenType, shape: ComponentShape): number {
  const ref = shape.reference_screen_inch ?? category.defaults.screen_size_inch;
  return ref > 0 ? displayKg(ref, type, category) : 0;
}

/** Display component with the group's area elasticity. */
export function displayComponentKg(category: CategoryDefinition, inches: number, type: ScreenType, shape: ComponentShape): number {
  if (!(inches > 0)) return 0;
  return withElasticity(displayKg(inches, type, category), displayAnchorKg(category, type, shape), shape.display_area_elasticity);
}

/** Unscaled component priors (kg CO2e), with the group's fitted elasticities. */
export function rawProductionComponents(
  category: CategoryDefinition,
  s: ResolvedSpecs,
  shape: ComponentShape = PROPORTIONAL,
): ComponentValues {
  const p = category.parameters.production;
  return {
    chassis: withElasticity(chassisKg(category, s), chassisAnchorKg(category, s, shape), shape.mass_elasticity),
    mainboard: mainboardKg(category, s.processor_tdp_w),
    processor: processorKg(s.processor_tdp_w, category.defaults.processor_count),
    memory: memoryKg(s.ram_gb, p.ram_gb_per_module),
    storage: storageKg(s.storage_gb, s.storage_type, p.hdd_gb_per_drive),
    display: displayComponentKg(category, s.screen_size_inch, s.screen_type, shape),
    battery: batteryKg(s.battery_wh, category),
    power_supply: p.power_supply_mass_kg * BOAVIZTA.psu_per_kg,
    assembly: assemblyKg(s.weight_kg),
  };
}

/** Raw sums per fitted block. */
export function blockSums(components: ComponentValues): Record<ProductionBlock, number> {
  const out: Record<ProductionBlock, number> = { structure: 0, electronics: 0, memory_storage: 0, display: 0 };
  for (const c of PRODUCTION_COMPONENTS) out[COMPONENT_BLOCK[c]] += components[c];
  return out;
}

export function scaleComponents(components: ComponentValues, m: ProductionMultipliers): ComponentValues {
  const out = { ...components };
  for (const c of PRODUCTION_COMPONENTS) out[c] = components[c] * m[COMPONENT_BLOCK[c]];
  return out;
}

export function sumComponents(components: ComponentValues): number {
  let t = 0;
  for (const c of PRODUCTION_COMPONENTS) t += components[c];
  return t;
}
