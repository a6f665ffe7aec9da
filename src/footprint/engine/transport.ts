/**
 * Transport phase: shipped mass x route (assembly region to country of use) x mode split
 * x per-tonne-km factors.
 */
import { countries } from 'countries-list';
import { FREIGHT_KG_PER_TKM, INTRA_REGION_ROAD_KM, ROAD_KM, ROUTES } from './constants.ts';
import type { AssemblyRegion, UseRegion } from './types.ts';

const EAST_ASIA = new Set(['CN', 'HK', 'MO', 'TW', 'JP', 'KR', 'KP', 'MN']);
const SOUTHEAST_ASIA = new Set(['VN', 'TH', 'MY', 'SG', 'ID', 'PH', 'KH', 'LA', 'MM', 'BN', 'TL']);
const SOUTH_ASIA = new Set(['IN', 'PK', 'BD', 'LK', 'NP', 'BT', 'MV', 'AF']);

const CONTINENT_REGION: Record<string, UseRegion> = {
  EU: 'europe',
  NA: 'north_america',
  SA: 'south_america',
  AF: 'africa',
  OC: 'oceania',
  AS: 'west_asia',
  AN: 'oceania',
};

/** Macro-region of a country or sub-national code ('DE', 'US-CA', 'CN-GD'); null when unknown. */
export function useRegionOf(code: string): UseRegion | null {
  const cc = code.trim().toUpperCase().slice(0, 2);
  if (EAST_ASIA.has(cc)) return 'east_asia';
  if (SOUTHEAST_ASIA.has(cc)) return 'southeast_asia';
  if (SOUTH_ASIA.has(cc)) return 'south_asia';
  const c = (countries as Record<string, { continent?: string } | undefined>)[cc];
  if (!c?.continent) return null;
  return CONTINENT_REGION[c.continent] ?? null;
}

/** Impact per tonne-km of each freight mode, in the criterion being computed (GWP: kg CO2e). */
export interface FreightFactors {
  air: number;
  sea: number;
  road: number;
}

export interface TransportResult {
  kg: number;
  air_share: number;
  shipped_mass_kg: number;
  use_region: UseRegion;
  air_km: number;
  sea_km: number;
  road_km: number;
}

/**
 * kg CO2e = shipped tonnes x [air_share x air_km x EF_air + (1 - air_share) x sea_km x EF_sea + road_km x EF_road].
 * Within one region the surface share travels by road instead of sea. Other criteria pass their own
 * per-tonne-km factors (`kg` is then in that criterion's unit).
 */
export function transportKg(
  weightKg: number,
  shippingMassFactor: number,
  airShare: number,
  from: AssemblyRegion,
  to: UseRegion,
  perTonneKm: FreightFactors = FREIGHT_KG_PER_TKM,
): TransportResult {
  const air = Math.min(1, Math.max(0, airShare));
  const [airKm, seaKm] = ROUTES[from][to];
  const tonnes = (weightKg * shippingMassFactor) / 1000;
  const sameRegion = seaKm === 0;
  const roadKm = sameRegion ? (1 - air) * INTRA_REGION_ROAD_KM + ROAD_KM / 2 : ROAD_KM;
  const perTonne = air * airKm * perTonneKm.air + (1 - air) * seaKm * perTonneKm.sea + roadKm * perTonneKm.road;
  return {
    kg: tonnes * perTonne,
    air_share: air,
    shipped_mass_kg: weightKg * shippingMassFactor,
    use_region: to,
    air_km: airKm,
    sea_km: sameRegion ? 0 : seaKm,
    road_km: roadKm,
  };
}

/** Per-kg transport factor split into the air-dependent and air-independent parts (used by the fit). */
export function transportPerKgParts(
  shippingMassFactor: number,
  from: AssemblyRegion,
  to: UseRegion,
): { fixed: number; perAirShare: number } {
  const t0 = transportKg(1, shippingMassFactor, 0, from, to).kg;
  const t1 = transportKg(1, shippingMassFactor, 1, from, to).kg;
  return { fixed: t0, perAirShare: t1 - t0 };
}
