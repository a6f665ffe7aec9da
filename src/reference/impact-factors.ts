/**
 * The ADPe and PE per kWh of each country's electricity (data/impact-factors/boavizta-electricity.json)
 * as rows of emission_factors (types ELECTRICITY_ADPE and ELECTRICITY_PE, registry 'boavizta'), so that
 * they are cited and looked up (factorByRegion) like the grid factors. The engine reads the same file.
 */
import electricity from '../../data/impact-factors/boavizta-electricity.json' with { type: 'json' };

export interface ElectricityImpactFactorRow {
  type: 'ELECTRICITY_ADPE' | 'ELECTRICITY_PE';
  region_code: string;
  value: number;
  unit: string;
  registry_key: string;
  source: string;
  source_version: string;
  source_url: string;
  source_license: string;
  valid_from: string;
  valid_to: null;
}

/** valid_from of the rows: the data's reference year (ADEME Base IMPACTS 2011). */
const VALID_FROM = '2011-01-01';

export function loadElectricityImpactFactors(): ElectricityImpactFactorRow[] {
  const common = {
    registry_key: electricity.registry_key,
    source_url: `${electricity.repository}/blob/${electricity.commit}/boaviztapi/data/crowdsourcing/electrical_mix.csv`,
    source_license: electricity.licence,
    valid_from: VALID_FROM,
    valid_to: null,
  };
  return electricity.records.flatMap((r) => [
    {
      ...common,
      type: 'ELECTRICITY_ADPE' as const,
      region_code: r.region_code,
      value: r.adpe_kg_sb_eq_per_kwh,
      unit: electricity.adpe.unit,
      source: `${electricity.adpe.indicator}, via BoaviztAPI (${r.boavizta_code})`,
      source_version: `${electricity.adpe.vintage}; boaviztapi commit ${electricity.commit.slice(0, 12)}`,
    },
    {
      ...common,
      type: 'ELECTRICITY_PE' as const,
      region_code: r.region_code,
      value: r.pe_mj_per_kwh,
      unit: electricity.pe.unit,
      source: `BoaviztAPI primary energy of the electricity mix (ADPf / (1 - renewable share)), ${r.boavizta_code}`,
      source_version: `${electricity.pe.vintage}; boaviztapi commit ${electricity.commit.slice(0, 12)}`,
    },
  ]);
}
