/**
 * Literature factors of the engine (priors). The calibration fit (data/engine-parameters.json)
 * only scales groups of these; it never replaces them by per-device values.
 * Every number is documented with its source in docs/methodology.md.
 */
import type { AssemblyRegion, Confidence, EolMaterialClass, ScreenType, UseRegion } from './types.ts';

export const ENGINE_VERSION = '4.11.0';

/** The confidence levels, most certain first. */
export const CONFIDENCE_LEVELS = [
  'manufacturer_verified',
  'estimated_high',
  'estimated_medium',
  'estimated_low',
] as const satisfies readonly Confidence[];

/** The least certain of several results' levels: a sum is no better known than its weakest part. */
export function lowestConfidence(levels: readonly Confidence[]): Confidence {
  if (levels.length === 0) throw new RangeError('lowestConfidence of no result');
  return levels.reduce((lowest, l) => (CONFIDENCE_LEVELS.indexOf(l) > CONFIDENCE_LEVELS.indexOf(lowest) ? l : lowest));
}

/** Boavizta bottom-up manufacture model (boaviztapi, impact_factor gwp values). */
export const BOAVIZTA = {
  cpu_base_kg: 9.14,
  cpu_per_die_cm2_kg: 1.97,
  ram_per_module_kg: 5.22,
  ram_per_die_cm2_kg: 2.2,
  ssd_base_kg: 6.34,
  ssd_per_die_cm2_kg: 2.2,
  ssd_density_gb_per_cm2: 48.5,
  hdd_per_drive_kg: 31.1,
  motherboard_server_kg: 66.1,
  psu_per_kg: 24.3,
  assembly_server_kg: 6.68,
} as const;

/** Processor die area as a function of TDP (cm2 per socket), bounded. */
export const DIE_AREA = { base_cm2: 0.5, per_w_cm2: 0.01, max_cm2: 8 } as const;

/**
 * DRAM density for current 16 Gb dies (GB per cm2 of die). Boavizta's default of 0.625 GB/cm2
 * describes 2015-era server DIMMs; 2019+ client DRAM reaches about 1.5-2.7 GB/cm2.
 */
export const DRAM_DENSITY_GB_PER_CM2 = 1.5;

/** Smaller controller and no enclosure: eMMC/UFS modules of phones, tablets and embedded devices. */
export const EMMC_BASE_KG = 1.5;

/** Mainboard scales sub-linearly with processor TDP (board area, VRM, chipset). */
export const MAINBOARD_TDP_EXPONENT = 0.35;

/**
 * Display panel (module incl. backlight and driver boards), kg CO2e per m2 of active area.
 * TFT-LCD value of the order of panel LCAs (Socolof et al. 2005; PAIA monitor model);
 * technology multipliers are engineering assumptions (see methodology).
 */
export const DISPLAY_KG_PER_M2: Record<ScreenType, number> = {
  lcd: 700,
  tn: 630,
  va: 700,
  ips: 735,
  oled: 945,
  mini_led: 1050,
};

/** Battery cells and pack, kg CO2e per Wh (Emilsson & Dahllof 2019; Dai et al. 2019; small-format uplift). */
export const BATTERY_KG_PER_WH = { li_ion: 0.12, lead_acid: 0.05 } as const;
/** Pack-level specific energy, Wh per kg, to subtract the battery from the housing mass. */
export const BATTERY_WH_PER_KG = { li_ion: 180, lead_acid: 35 } as const;

/** Keyboard and trackpad assembly of a notebook (plastics, aluminium, small PCB, haptics). */
export const KEYBOARD_TRACKPAD_KG = 4.5;

/** Minimum housing share of the device mass (frames, brackets, fasteners, board substrate). */
export const MIN_HOUSING_SHARE = 0.2;

/** Freight factors, kg CO2e per tonne-km (UK DESNZ/DEFRA conversion factors, freighting goods; GLEC). */
export const FREIGHT_KG_PER_TKM = { air: 0.6, sea: 0.016, road: 0.107 } as const;
/** Road legs to and from ports/airports, km (both ends together). */
export const ROAD_KM = 1000;

/**
 * Route distances (km) from assembly region to use region: [air, sea].
 * Air: great-circle hub to hub plus 9% routing uplift (DEFRA). Sea: port to port via the usual canals.
 * Same-region routes have sea = 0 (surface leg by road only, using `intra_road_km`).
 */
export const ROUTES: Record<AssemblyRegion, Record<UseRegion, readonly [number, number]>> = {
  east_asia: {
    east_asia: [1500, 0],
    southeast_asia: [3000, 3200],
    south_asia: [4600, 7500],
    west_asia: [7000, 10500],
    europe: [9500, 19500],
    north_america: [11500, 11500],
    south_america: [19000, 20000],
    africa: [12000, 15000],
    oceania: [8000, 8500],
  },
  southeast_asia: {
    east_asia: [3000, 3200],
    southeast_asia: [1500, 0],
    south_asia: [3500, 4000],
    west_asia: [6500, 7500],
    europe: [10500, 15500],
    north_america: [14000, 16000],
    south_america: [17500, 18000],
    africa: [9500, 10000],
    oceania: [6000, 6500],
  },
  south_asia: {
    east_asia: [4600, 7500],
    southeast_asia: [3500, 4000],
    south_asia: [1500, 0],
    west_asia: [3000, 3500],
    europe: [7000, 12000],
    north_america: [13500, 17000],
    south_america: [16000, 17000],
    africa: [7000, 8000],
    oceania: [10000, 10500],
  },
  europe: {
    east_asia: [9500, 19500],
    southeast_asia: [10500, 15500],
    south_asia: [7000, 12000],
    west_asia: [4000, 6500],
    europe: [1200, 0],
    north_america: [7000, 7500],
    south_america: [10000, 11000],
    africa: [6000, 9000],
    oceania: [17000, 22000],
  },
  north_america: {
    east_asia: [11500, 11500],
    southeast_asia: [14000, 16000],
    south_asia: [13500, 17000],
    west_asia: [11500, 15000],
    europe: [7000, 7500],
    north_america: [2500, 0],
    south_america: [7500, 8500],
    africa: [12000, 12000],
    oceania: [12500, 12000],
  },
};
export const INTRA_REGION_ROAD_KM = 1500;

/**
 * End of life, kg CO2e per kg of device, cut-off approach (collection, pre-treatment, shredding,
 * incineration of residual plastics; no recycling credits). Priors; fitted per group where the
 * calibration set publishes end-of-life shares.
 */
export const EOL_KG_PER_KG: Record<EolMaterialClass, number> = {
  metal_rich: 0.3,
  mixed: 0.5,
  plastic_rich: 0.7,
  display_rich: 0.5,
  battery_rich: 1.5,
};

/** Extra electricity of a used device against a new equivalent one (efficiency gain of one product generation). */
export const OLD_DEVICE_ENERGY_PENALTY = 0.15;

/** Equivalents. */
export const CAR_KG_PER_KM = 0.17; // UK DESNZ 2023, average car, unknown fuel (0.168 kg CO2e/km), rounded
export const TREE_KG_PER_YEAR = 21.77; // 48 lb CO2 per mature tree and year (Arbor Day Foundation / widely used)
