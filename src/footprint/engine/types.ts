/**
 * Types of the pure carbon engine (calculation engine v4).
 * All masses are kg, all emissions kg CO2e, energy kWh, grid factors kg CO2e per kWh.
 */

export const SCREEN_TYPES = ['lcd', 'oled', 'ips', 'tn', 'va', 'mini_led'] as const;
export const STORAGE_TYPES = ['ssd', 'hdd', 'emmc', 'nvme'] as const;
export type ScreenType = (typeof SCREEN_TYPES)[number];
export type StorageType = (typeof STORAGE_TYPES)[number];

export interface DeviceSpecs {
  weight_kg?: number;
  screen_size_inch?: number;
  screen_type?: ScreenType;
  processor_tdp_w?: number;
  ram_gb?: number;
  storage_gb?: number;
  storage_type?: StorageType;
  battery_wh?: number;
  typical_consumption_kwh?: number;
}

/** The spec fields that count towards supplied_spec_count (all fields of DeviceSpecs). */
export const SPEC_FIELDS = [
  'weight_kg',
  'screen_size_inch',
  'screen_type',
  'processor_tdp_w',
  'ram_gb',
  'storage_gb',
  'storage_type',
  'battery_wh',
  'typical_consumption_kwh',
] as const satisfies readonly (keyof DeviceSpecs)[];
export type SpecField = (typeof SPEC_FIELDS)[number];

export type AssemblyRegion = 'east_asia' | 'southeast_asia' | 'south_asia' | 'europe' | 'north_america';
export type UseRegion = AssemblyRegion | 'west_asia' | 'south_america' | 'africa' | 'oceania';
export type ChassisMaterial =
  | 'aluminium_plastic'
  | 'plastic'
  | 'steel'
  | 'steel_plastic'
  | 'glass_aluminium'
  | 'aluminium'
  | 'magnesium_plastic';
export type EolMaterialClass = 'metal_rich' | 'mixed' | 'plastic_rich' | 'display_rich' | 'battery_rich';

export type CategoryDefaults = Required<Omit<DeviceSpecs, 'typical_consumption_kwh'>> & {
  /** width / height of the screen, used to turn a diagonal into an area */
  screen_aspect_ratio: number;
  /** processor sockets; processor_tdp_w is the total over all sockets */
  processor_count: number;
};

export interface CategoryParameters {
  /** calibration group whose fitted coefficients apply (falls back to the pooled fit when the group has no data) */
  fit_group: string;
  production: {
    chassis_material: ChassisMaterial;
    chassis_kg_co2e_per_kg: number;
    /**
     * enclosure prior that replaces the per-kg housing model when > 0 (Boavizta: rack case 150 kg,
     * blade 30.9 kg + 1/16 of an 880 kg enclosure), scaled by (weight / default weight)^0.5
     */
    chassis_fixed_kg_co2e: number;
    /** mainboard (PCB and board-level ICs except CPU and memory) at the category's default TDP */
    mainboard_kg_co2e: number;
    power_supply_mass_kg: number;
    /** true when the power supply is an external adapter (not part of weight_kg) */
    power_supply_external: boolean;
    display_mass_kg_per_m2: number;
    /** multiplier on the per-m2 display factor (e.g. e-paper is far lighter than a TFT-LCD) */
    display_factor_multiplier: number;
    battery_chemistry: 'li_ion' | 'lead_acid';
    hdd_gb_per_drive: number;
    ram_gb_per_module: number;
  };
  transport: {
    assembly_region: AssemblyRegion;
    /** shipped mass (product + packaging + accessories) / product mass */
    shipping_mass_factor: number;
    /** literature prior for the air-freight share; the fitted group value in engine-parameters.json wins */
    air_share: number;
  };
  use_phase: {
    /** share of fallback_kwh_per_year that scales with processor TDP */
    tdp_share: number;
    /** share of fallback_kwh_per_year that scales with screen area */
    screen_share: number;
  };
  end_of_life: { material_class: EolMaterialClass };
  limits: { max_weight_kg: number; max_screen_inch: number };
  /**
   * For products whose size is set by their screen (notebooks, monitors, all-in-ones, tablets): an
   * unstated weight is the default weight x (screen / default screen)^exponent (specs.ts unstatedWeight).
   */
  weight_screen_exponent?: number;
}

export interface CategoryDefinition {
  id: string;
  name: string;
  group: string;
  lifetime_years: number;
  fallback_kwh_per_year: number;
  defaults: CategoryDefaults;
  /**
   * Median memory and storage of the built-in catalogue's devices of this category per release
   * year (years with at least 5 devices stating both): what an unstated ram_gb or storage_gb is
   * taken to be instead of the fixed default (specs.ts typicalConfiguration).
   */
  typical_configuration?: Record<string, TypicalConfiguration>;
  /**
   * Servers: the configuration manufacturers' footprint sheets of the category assume (memory,
   * storage, storage type); the lookup chain fills a server's unstated ones with it, in place of the
   * catalogue's chosen configuration and the defaults (specs.ts sheetConfigurationFill).
   */
  sheet_configuration?: SheetConfiguration;
  /**
   * Servers: years between a model's release and the date of its manufacturer footprint sheet (the
   * year the fitted year terms stand for); the lookup chain moves a release year by it
   * (release-year.ts engineYear).
   */
  sheet_year_lag?: number;
  parameters: CategoryParameters;
  sources: Record<string, string>;
}

export interface SheetConfiguration {
  ram_gb: number;
  storage_gb: number;
  storage_type: StorageType;
  /** manufacturer footprint sheets the medians are taken over */
  sheets: number;
}

export interface TypicalConfiguration {
  ram_gb: number;
  storage_gb: number;
  /** catalogue devices of that year stating both */
  devices: number;
}

export interface PublishedFootprint {
  total_kg: number;
  lifetime_years: number;
  use_location: string;
  use_ratio?: number;
  source_url?: string;
}

export interface FootprintInput {
  category: CategoryDefinition;
  /** already merged: supplied over catalogue; missing fields fall back to category defaults */
  specs: DeviceSpecs;
  /** how many spec fields the caller or catalogue supplied; drives confidence */
  supplied_spec_count: number;
  published?: PublishedFootprint;
  grid_factor_kg_per_kwh: number;
  /** ISO 3166-1 alpha-2 code or sub-national code such as 'US-CA' */
  use_region: string;
  lifetime_years?: number;
  /**
   * manufacturer of the product (the request's brand); normalised ('HP Inc.' = 'HP' = 'Hewlett
   * Packard Enterprise'). Selects the fitted brand level of the calibration adjustment; unknown or
   * missing brands use the calibration group's pooled level, without the release-year terms.
   */
  brand?: string;
  /** release year of the product (catalogue); drives the fitted year trend; missing = group reference year */
  release_year?: number;
  /**
   * true when release_year is an estimate (from a purchase date): it drives the year terms, but the
   * interval is the one measured without a year, as the estimate may be off by the buyer's lag
   */
  release_year_estimated?: boolean;
}

/** The impact criteria every result carries: climate change, abiotic depletion of elements, primary energy. */
export type Criterion = 'gwp' | 'adpe' | 'pe';
/** The criteria whose factors src/footprint/engine/impacts.ts carries (GWP is the engine's own model). */
export type ResourceCriterion = Exclude<Criterion, 'gwp'>;

export interface CriterionPhases {
  production: number;
  transport: number;
  use: number;
  end_of_life: number;
}

/** The ~80 % interval of a criterion's figure, in its unit. */
export interface CriterionInterval {
  low: number;
  high: number;
  method: string;
}

/** One criterion of a result: per phase, total, its ~80 % interval and where the factors come from. */
export interface CriterionResult {
  unit: string;
  phases: CriterionPhases;
  total: number;
  uncertainty_pct: number;
  interval: CriterionInterval;
  confidence: Confidence;
  /** production by component (footprints only; the refurbishment's heatmap and hotspot ranking read it) */
  production_components?: Record<string, number>;
  sources: string[];
  /** proxies and gaps of this criterion for this result, said plainly */
  notes: string[];
}

/** The per-kWh factors of the country of use (or reuse) the use phase was computed with. */
export interface ElectricityImpactFactors {
  /** the factor table's region: an ISO 3166-1 alpha-2 code, or WORLD when the country is not in it */
  region_code: string;
  adpe_kg_sb_eq_per_kwh: number;
  pe_mj_per_kwh: number;
  source: string;
}

/** GWP, ADPe and PE of one result. */
export interface CriteriaResult {
  gwp: CriterionResult;
  adpe: CriterionResult;
  pe: CriterionResult;
}

export interface ImpactsResult extends CriteriaResult {
  electricity: ElectricityImpactFactors;
}

export interface FootprintBreakdown {
  production_kg: number;
  transport_kg: number;
  use_phase_kg: number;
  end_of_life_kg: number;
}

export type Confidence = 'manufacturer_verified' | 'estimated_high' | 'estimated_medium' | 'estimated_low';

export interface FootprintResult {
  engine_version: string;
  total_kg_co2e: number;
  breakdown: FootprintBreakdown;
  confidence: Confidence;
  uncertainty_pct: number;
  lifetime_years: number;
  annual_kwh: number;
  /** kg CO2e by component; sums to breakdown.production_kg (up to rounding) */
  production_components: Record<string, number>;
  assumptions: string[];
  /** additional fields (always set by calculateFootprint; optional so stored results stay assignable) */
  category?: string;
  /** production + transport + end of life */
  embodied_kg?: number;
  grid_factor_kg_per_kwh?: number;
  transport?: { assembly_region: AssemblyRegion; use_region: UseRegion; air_share: number; shipped_mass_kg: number };
  specs_used?: Required<Omit<DeviceSpecs, 'typical_consumption_kwh'>> & { typical_consumption_kwh: number | null };
  /** GWP, ADPe and PE per phase (absent in results stored before the impacts beyond carbon) */
  impacts?: ImpactsResult;
}

export interface SavingsInput {
  footprint: FootprintResult;
  remaining_years: number;
  grid_factor_kg_per_kwh: number;
}

export interface SavingsResult {
  remaining_life_years: number;
  avoided_co2_kg: number;
  avoided_production_kg: number;
  avoided_transport_kg: number;
  additional_use_phase_kg: number;
  equivalents: { km_driving_avoided: number; trees_year_equivalent: number };
  /** additional fields */
  old_device_use_phase_kg: number;
  old_device_energy_penalty: number;
  engine_version: string;
  /**
   * Avoided GWP, ADPe and PE by phase: production and transport of the new device avoided (positive),
   * use = the older device's extra electricity (negative), end of life 0 (deferred, not avoided).
   * Absent when the footprint has no impacts (results stored before them).
   */
  impacts?: CriteriaResult;
}

export type Swap =
  | { kind: 'battery'; wh: number }
  | { kind: 'storage'; gb: number; storage_type: StorageType }
  | { kind: 'ram'; total_gb: number; modules: number }
  | { kind: 'display'; inches: number; screen_type: ScreenType }
  | { kind: 'keyboard_trackpad' };

export type Grade = 'A' | 'B' | 'C';

export interface RefurbishmentInput {
  footprint: FootprintResult;
  category: CategoryDefinition;
  specs: DeviceSpecs;
  grade: Grade;
  swaps: Swap[];
  remaining_years: number;
  reuse_grid_factor_kg_per_kwh: number;
  /** country (or sub-national code) of reuse, for the ADPe and PE of its electricity; default: the footprint's */
  reuse_region?: string;
}

export interface RefurbishmentOverhead {
  total_kg: number;
  cleaning_kg: number;
  testing_kg: number;
  parts_kg: number;
  packaging_kg: number;
  logistics_kg: number;
}

export interface RefurbishmentSwapResult {
  kind: Swap['kind'];
  /** the swap as a normalised token, e.g. 'storage:512:nvme' */
  token: string;
  /** production component the swap replaces */
  component: string;
  production_kg: number;
}

export interface HeatmapEntry {
  component: string;
  kg: number;
  share_pct: number;
  swapped: boolean;
}

export interface RefurbishmentResult {
  engine_version: string;
  grade: Grade;
  grade_label: 'Like New' | 'Good' | 'Fair';
  remaining_life_years: number;
  overhead: RefurbishmentOverhead;
  swaps: RefurbishmentSwapResult[];
  swaps_total_kg: number;
  refurbishment_total_kg: number;
  new_device: { production_kg: number; transport_kg: number; embodied_kg: number };
  adjusted_use_phase: {
    reuse_grid_factor_kg_per_kwh: number;
    annual_kwh_new: number;
    annual_kwh_refurbished: number;
    refurbished_use_phase_kg: number;
    new_device_use_phase_kg: number;
    additional_use_phase_kg: number;
  };
  gross_avoided_kg: number;
  net_savings_kg: number;
  net_savings_pct: number;
  break_even_years: number | null;
  production_heatmap: HeatmapEntry[];
  equivalents: { km_driving_avoided: number; trees_year_equivalent: number };
  assumptions: string[];
  /**
   * Net savings in GWP, ADPe and PE by phase: production = new device's production avoided minus the
   * refurbishment's parts, swaps and testing; transport = new device's transport avoided minus the
   * refurbishment logistics; use = the refurbished device's extra electricity (negative); end of life 0.
   * Absent when the footprint has no impacts.
   */
  impacts?: CriteriaResult;
}

export interface FieldProblem {
  field: string;
  reason: string;
}
