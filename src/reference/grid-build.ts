/**
 * Pure assembly of grid emission factors and regions from the package data and the typed-in files.
 * All I/O (reading data/, requiring @tgwf/co2 and i18n-iso-countries) happens in grid-sources.ts.
 */
import { roundTo } from '../footprint/engine/rounding.ts';

/** One yearly Electricity Maps dataset as shipped by @tgwf/co2 (`electricityMaps.yearlyYYYY`). */
export interface RegionRecord {
  code: string;
  name: string;
  kind: 'country' | 'subdivision';
  parent_code: string | null;
}

export interface RegistryRecord {
  key: string;
  display_name: string;
  current_version: string;
  url: string;
  license: string;
  next_check_after: string | null;
}

/** Who published a figure, in which version and under which licence, and the dates it is valid for. */
export interface PublishedVintage {
  source: string;
  source_version: string;
  source_url: string | null;
  source_license: string | null;
  /** YYYY-MM-DD */
  valid_from: string;
  /** YYYY-MM-DD, inclusive; null for the newest vintage */
  valid_to: string | null;
}

export interface GridFactorRecord extends PublishedVintage {
  type: 'GRID';
  region_code: string;
  /** kg CO2e per kWh, lifecycle: the value footprints use */
  value: number;
  unit: 'kg CO2e/kWh';
  /** Basis of `value`: always lifecycle_co2e. */
  basis: 'lifecycle_co2e';
  /** The figure as its publisher gives it (kg per kWh, in published_basis). */
  published_value: number;
  published_basis: GridFactorBasis;
  /** value = published_value x uplift; null when the figure is published as lifecycle CO2e. */
  uplift: number | null;
  /** The two figures the uplift is the ratio of; null when there is no uplift. */
  uplift_source: string | null;
  registry_key: string;
}

export interface ElectricityMapsYear {
  year: number;
  methodology: string;
  /** zone key -> { name, g CO2e per kWh (lifecycle) } */
  zones: ReadonlyMap<string, { name: string; gPerKwh: number }>;
}

export interface EmSubdivision {
  zone: string;
  iso_code: string;
  name: string;
}

export interface RegionalProxy {
  code: string;
  aggregate: string;
  m49: string;
}

/**
 * Closed vocabulary of grid factor bases. lifecycle_co2e: generation plus upstream fuel chain and infrastructure,
 * CO2 + CH4 + N2O as CO2e (Electricity Maps, Ember); direct_co2e: combustion at the plant, CO2 + CH4 + N2O (eGRID);
 * direct_co2: combustion CO2 only (China MEE/NBS).
 */
export const GRID_FACTOR_BASES = ['lifecycle_co2e', 'direct_co2e', 'direct_co2'] as const;
export type GridFactorBasis = (typeof GRID_FACTOR_BASES)[number];

/** A typed-in factor record from data/grid-factors/*.json. */
export interface TypedFactor extends PublishedVintage {
  region_code: string;
  name: string;
  /** Name in the publication's language, where it differs (used for name matching only). */
  name_zh?: string | undefined;
  /** As published, in the file's basis. */
  value: number;
  unit: 'kg CO2e/kWh' | 'kg CO2/kWh';
}

/** The same publisher's national figure for one data year, the denominator of the lifecycle uplift. */
export interface NationalDirectFigure {
  year: number;
  /** kg per kWh, in the file's basis */
  value: number;
  source: string;
}

export interface TypedFactorFile {
  registry_key: string;
  basis: Exclude<GridFactorBasis, 'lifecycle_co2e'>;
  /** Country whose Electricity Maps lifecycle figure is the numerator of the uplift. */
  uplift_country: string;
  national: readonly NationalDirectFigure[];
  records: readonly TypedFactor[];
}

export interface GridBuildInput {
  /** Installed version of @tgwf/co2. */
  co2Version: string;
  electricityMaps: readonly ElectricityMapsYear[];
  /** Ember averageIntensity.data: ISO alpha-3 or aggregate key -> g CO2e per kWh. */
  ember: ReadonlyMap<string, number>;
  /** ISO 3166-1 alpha-2 codes known to i18n-iso-countries. */
  countryCodes: ReadonlySet<string>;
  alpha3ToAlpha2: (alpha3: string) => string | undefined;
  emSubdivisions: readonly EmSubdivision[];
  proxies: readonly RegionalProxy[];
  typed: readonly TypedFactorFile[];
}

export const EM_REGISTRY = 'electricity-maps';
export const EMBER_REGISTRY = 'ember';
export const EMBER_URL = 'https://ember-climate.org/data/data-explorer/';
export const EMBER_LICENSE = 'CC-BY-SA-4.0';
export const EM_LICENSE = 'ODbL-1.0';
/**
 * valid_from given to single-vintage package figures (Ember national values and regional proxies),
 * whose data year the package does not ship: the first year of the primary (Electricity Maps) series.
 */
export const SINGLE_VINTAGE_VALID_FROM = '2021-01-01';

const COUNTRY = /^[A-Z]{2}$/;
const ALPHA3 = /^[A-Z]{3}$/;

/** g/kWh -> kg/kWh, free of binary noise (6 decimals are below the precision of every source). */
export function gramsToKg(gPerKwh: number): number {
  return Math.round(gPerKwh * 1000) / 1e6;
}

/** Provenance of a lifecycle value that is published as such. */
function published(value: number): Pick<GridFactorRecord, 'basis' | 'published_value' | 'published_basis' | 'uplift' | 'uplift_source'> {
  return { basis: 'lifecycle_co2e', published_value: value, published_basis: 'lifecycle_co2e', uplift: null, uplift_source: null };
}

function usable(g: number | undefined): g is number {
  return g !== undefined && Number.isFinite(g) && g > 0;
}

/**
 * Vintage of the Ember figures: the package ships the latest available year per key without the year.
 * `source` names the package and its version, so this names only the data year and the export (no repeats
 * when the two are cited together, see factorCitation).
 */
export const EMBER_SOURCE_VERSION = 'latest available year, not shipped by the package (averageIntensity export)';

/** Every factor of every region, sorted by region code then valid_from. Throws on a duplicate (region, valid_from). */
export function buildGridFactors(input: GridBuildInput): GridFactorRecord[] {
  const v = input.co2Version;
  const byRegion = new Map<string, GridFactorRecord[]>();
  const add = (record: GridFactorRecord): void => {
    const list = byRegion.get(record.region_code) ?? [];
    if (list.some((r) => r.valid_from === record.valid_from)) {
      throw new Error(`grid factors: duplicate vintage ${record.region_code} ${record.valid_from}`);
    }
    list.push(record);
    byRegion.set(record.region_code, list);
  };

  // 1. Electricity Maps yearly series (primary, lifecycle): countries and ISO 3166-2 zones.
  const subdivisionByZone = new Map(input.emSubdivisions.map((s) => [s.zone, s]));
  const emRegions = new Set<string>();
  for (const year of [...input.electricityMaps].sort((a, b) => a.year - b.year)) {
    for (const [zone, { name, gPerKwh }] of year.zones) {
      const regionCode = COUNTRY.test(zone) && input.countryCodes.has(zone) ? zone : subdivisionByZone.get(zone)?.iso_code;
      if (regionCode === undefined || !usable(gPerKwh)) continue;
      emRegions.add(regionCode);
      add({
        type: 'GRID',
        region_code: regionCode,
        value: gramsToKg(gPerKwh),
        unit: 'kg CO2e/kWh',
        ...published(gramsToKg(gPerKwh)),
        registry_key: EM_REGISTRY,
        source: `Electricity Maps carbon intensity, lifecycle, zone ${zone} (${name}); via @tgwf/co2 ${v}`,
        source_version: `${year.year} yearly average (electricityMaps.yearly${year.year})`,
        source_url: year.methodology,
        source_license: EM_LICENSE,
        valid_from: `${year.year}-01-01`,
        valid_to: `${year.year}-12-31`,
      });
    }
  }

  // 2. Ember national figures for countries Electricity Maps does not cover (single vintage, lifecycle).
  for (const [key, gPerKwh] of input.ember) {
    if (!ALPHA3.test(key)) continue;
    const code = input.alpha3ToAlpha2(key);
    if (code === undefined || !input.countryCodes.has(code) || byRegion.has(code) || !usable(gPerKwh)) continue;
    add({
      type: 'GRID',
      region_code: code,
      value: gramsToKg(gPerKwh),
      unit: 'kg CO2e/kWh',
      ...published(gramsToKg(gPerKwh)),
      registry_key: EMBER_REGISTRY,
      source: `Ember Yearly Electricity Data, emissions intensity (lifecycle CO2e), ${key}; via @tgwf/co2 ${v}`,
      source_version: EMBER_SOURCE_VERSION,
      source_url: EMBER_URL,
      source_license: EMBER_LICENSE,
      valid_from: SINGLE_VINTAGE_VALID_FROM,
      valid_to: null,
    });
  }

  // 3. Regional proxies (Ember regional aggregates) for countries with no country-level figure at all.
  for (const proxy of input.proxies) {
    const gPerKwh = input.ember.get(proxy.aggregate);
    if (!input.countryCodes.has(proxy.code) || byRegion.has(proxy.code) || !usable(gPerKwh)) continue;
    add({
      type: 'GRID',
      region_code: proxy.code,
      value: gramsToKg(gPerKwh),
      unit: 'kg CO2e/kWh',
      ...published(gramsToKg(gPerKwh)),
      registry_key: EMBER_REGISTRY,
      source: `REGIONAL PROXY: Ember '${proxy.aggregate}' regional aggregate (lifecycle CO2e) used for ${proxy.code} (UN M49: ${proxy.m49}); no country-level figure in the installed packages; via @tgwf/co2 ${v}`,
      source_version: EMBER_SOURCE_VERSION,
      source_url: EMBER_URL,
      source_license: EMBER_LICENSE,
      valid_from: SINGLE_VINTAGE_VALID_FROM,
      valid_to: null,
    });
  }

  // 4. Typed-in figures (eGRID states, China MEE provinces), published on a direct basis: converted to lifecycle
  //    CO2e with the ratio of the country's Electricity Maps lifecycle figure to the same publisher's national
  //    direct figure for the same data year (docs/grid-factors.md, "Basis").
  const emCountry = (country: string, year: number): number | undefined => {
    const g = input.electricityMaps.find((y) => y.year === year)?.zones.get(country)?.gPerKwh;
    return usable(g) ? gramsToKg(g) : undefined;
  };
  for (const file of input.typed) {
    for (const r of file.records) {
      if (emRegions.has(r.region_code)) {
        throw new Error(`grid factors: ${r.region_code} is both typed in and in the Electricity Maps selection`);
      }
      const year = Number(r.valid_from.slice(0, 4));
      const national = file.national.find((n) => n.year === year);
      const lifecycle = emCountry(file.uplift_country, year);
      if (!national || lifecycle === undefined) {
        throw new Error(
          `grid factors: no ${year} uplift for ${r.region_code} (needs the ${file.uplift_country} national figure and Electricity Maps ${year})`,
        );
      }
      // Ratios and converted values keep 6 decimals, like every stored factor. A lifecycle figure is never below the
      // direct figure it comes from: where the country series is below the national direct one, the uplift is 1.
      const ratio = roundTo(lifecycle / national.value, 6);
      const uplift = Math.max(1, ratio);
      add({
        type: 'GRID',
        region_code: r.region_code,
        value: roundTo(r.value * uplift, 6),
        unit: 'kg CO2e/kWh',
        basis: 'lifecycle_co2e',
        published_value: r.value,
        published_basis: file.basis,
        uplift,
        uplift_source: `Electricity Maps ${file.uplift_country} ${year} lifecycle average (${lifecycle} kg CO2e/kWh) / ${national.source} (${national.value} kg/kWh)${ratio < 1 ? `; ratio ${ratio} is below 1, so the published value is kept` : ''}`,
        registry_key: file.registry_key,
        source: `${r.source}; converted to lifecycle CO2e: published value ${r.value} x uplift ${uplift}`,
        source_version: r.source_version,
        source_url: r.source_url,
        source_license: r.source_license,
        valid_from: r.valid_from,
        valid_to: r.valid_to,
      });
    }
  }

  // The newest package vintage of a region is open-ended; typed records keep their own dates.
  const out: GridFactorRecord[] = [];
  for (const code of [...byRegion.keys()].sort()) {
    const list = (byRegion.get(code) ?? []).sort((a, b) => (a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : 0));
    const last = list[list.length - 1];
    if (last && last.registry_key === EM_REGISTRY) last.valid_to = null;
    out.push(...list);
  }
  return out;
}

export interface RegionNameInput {
  countryName: (alpha2: string) => string | undefined;
  /** ISO 3166-2 code -> display name, from the typed files and the subdivision selection. */
  subdivisionNames: ReadonlyMap<string, string>;
}

/** Regions that have at least one factor: countries first, then subdivisions, each sorted by code. */
export function buildRegions(factors: readonly GridFactorRecord[], names: RegionNameInput): RegionRecord[] {
  const codes = [...new Set(factors.map((f) => f.region_code))];
  const regions: RegionRecord[] = codes.map((code) => {
    const dash = code.indexOf('-');
    if (dash === -1) {
      return { code, name: names.countryName(code) ?? code, kind: 'country', parent_code: null };
    }
    return { code, name: names.subdivisionNames.get(code) ?? code, kind: 'subdivision', parent_code: code.slice(0, dash) };
  });
  return regions.sort((a, b) => (a.kind !== b.kind ? (a.kind === 'country' ? -1 : 1) : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}
