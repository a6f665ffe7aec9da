import { describe, expect, it } from 'vitest';
import { FREIGHT_KG_PER_TKM, INTRA_REGION_ROAD_KM, ROAD_KM, ROUTES } from './constants.ts';
import { transportKg, transportPerKgParts, useRegionOf } from './transport.ts';

describe('transport', () => {
  it('maps countries and sub-national codes to macro-regions', () => {
    expect(useRegionOf('DE')).toBe('europe');
    expect(useRegionOf('nl')).toBe('europe');
    expect(useRegionOf('US-CA')).toBe('north_america');
    expect(useRegionOf('CN-GD')).toBe('east_asia');
    expect(useRegionOf('JP')).toBe('east_asia');
    expect(useRegionOf('VN')).toBe('southeast_asia');
    expect(useRegionOf('IN')).toBe('south_asia');
    expect(useRegionOf('AE')).toBe('west_asia');
    expect(useRegionOf('BR')).toBe('south_america');
    expect(useRegionOf('ZA')).toBe('africa');
    expect(useRegionOf('AU')).toBe('oceania');
    expect(useRegionOf('XX')).toBeNull();
  });

  it('weight x route x mode split x per-tonne-km factors', () => {
    const [airKm, seaKm] = ROUTES.east_asia.europe;
    const t = transportKg(2, 1.5, 0.4, 'east_asia', 'europe');
    const tonnes = (2 * 1.5) / 1000;
    const expected =
      tonnes * (0.4 * airKm * FREIGHT_KG_PER_TKM.air + 0.6 * seaKm * FREIGHT_KG_PER_TKM.sea + ROAD_KM * FREIGHT_KG_PER_TKM.road);
    expect(t.kg).toBeCloseTo(expected, 9);
    expect(t.shipped_mass_kg).toBeCloseTo(3, 9);
    expect(t.air_share).toBe(0.4);
  });

  it('air freight dominates: more air, more emissions; heavier, more emissions', () => {
    expect(transportKg(2, 1.3, 1, 'east_asia', 'europe').kg).toBeGreaterThan(10 * transportKg(2, 1.3, 0, 'east_asia', 'europe').kg);
    expect(transportKg(4, 1.3, 0.5, 'east_asia', 'europe').kg).toBeCloseTo(2 * transportKg(2, 1.3, 0.5, 'east_asia', 'europe').kg, 9);
  });

  it('same-region deliveries go by road for the surface share', () => {
    const t = transportKg(10, 1, 0, 'europe', 'europe');
    expect(t.sea_km).toBe(0);
    expect(t.kg).toBeCloseTo(0.01 * (INTRA_REGION_ROAD_KM + ROAD_KM / 2) * FREIGHT_KG_PER_TKM.road, 9);
  });

  it('clamps the air share and splits the per-kg factor linearly', () => {
    expect(transportKg(1, 1, 2, 'east_asia', 'europe').air_share).toBe(1);
    expect(transportKg(1, 1, -1, 'east_asia', 'europe').air_share).toBe(0);
    const parts = transportPerKgParts(1.3, 'east_asia', 'north_america');
    expect(parts.fixed + 0.3 * parts.perAirShare).toBeCloseTo(transportKg(1, 1.3, 0.3, 'east_asia', 'north_america').kg, 9);
  });
});
