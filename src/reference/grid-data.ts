/**
 * Regions (countries and ISO 3166-2 subdivisions) and their grid emission factors, with provenance.
 *
 * Sources (see docs/grid-factors.md):
 * - countries: Electricity Maps yearly averages, lifecycle, 2021..2025, read from the @tgwf/co2 package at load time;
 *   gaps from Ember (same package, lifecycle), then Ember regional aggregates marked REGIONAL PROXY;
 * - subdivisions: Electricity Maps zones that are ISO 3166-2 subdivisions (same package), US states from EPA eGRID2022
 *   and Chinese provinces from the MEE/NBS 2021 and 2022 provincial factors (typed in under data/grid-factors/),
 *   both published on a direct basis and converted to lifecycle CO2e (docs/grid-factors.md, "Basis").
 *
 * The load functions read files synchronously once and memoise; everything else here is pure.
 */
import { buildGridFactors, buildRegions, type GridFactorRecord, type RegionRecord, type RegistryRecord } from './grid-build.ts';
import { type CodeIndexEntry, normaliseCode, rankClosestCodes } from './grid-codes.ts';
import {
  loadCo2Package,
  loadCountryNames,
  readEmSubdivisions,
  readRegionalProxies,
  readRegistries,
  readTypedFactorFiles,
  subdivisionNames,
} from './grid-sources.ts';

interface GridState {
  factors: readonly GridFactorRecord[];
  regions: readonly RegionRecord[];
  codes: ReadonlySet<string>;
  index: readonly CodeIndexEntry[];
}

let state: GridState | undefined;
let registries: readonly RegistryRecord[] | undefined;

function freezeAll<T extends object>(items: T[]): readonly T[] {
  for (const item of items) Object.freeze(item);
  return Object.freeze(items);
}

function loadState(): GridState {
  if (state) return state;
  const co2 = loadCo2Package();
  const countries = loadCountryNames();
  const typed = readTypedFactorFiles();
  const emSubdivisions = readEmSubdivisions();
  const factors = buildGridFactors({
    co2Version: co2.version,
    electricityMaps: co2.electricityMaps,
    ember: co2.ember,
    countryCodes: countries.codes,
    alpha3ToAlpha2: countries.alpha3ToAlpha2,
    emSubdivisions,
    proxies: readRegionalProxies(),
    typed,
  });
  const names = subdivisionNames(typed, emSubdivisions);
  const regions = buildRegions(factors, { countryName: countries.name, subdivisionNames: names });
  const zhNames = new Map<string, string>();
  for (const file of typed) for (const r of file.records) if (r.name_zh) zhNames.set(r.region_code, r.name_zh);
  const index: CodeIndexEntry[] = regions.map((r) => {
    if (r.kind === 'country') {
      const alpha3 = countries.alpha2ToAlpha3(r.code);
      return { code: r.code, kind: r.kind, names: [r.name, ...countries.aliases(r.code)], altCodes: alpha3 ? [alpha3] : [] };
    }
    // "Sardegna (Sardinia)" matches both "sardegna" and "sardinia".
    const parts = r.name
      .split(/[()]/)
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const zh = zhNames.get(r.code);
    return { code: r.code, kind: r.kind, names: [r.name, ...parts, ...(zh ? [zh] : [])] };
  });
  state = gridState({ factors, regions, index });
  return state;
}

/** The grid state as `npm run build` records it next to the compiled code (src/reference/load.ts). */
export interface BuiltGridState {
  factors: GridFactorRecord[];
  regions: RegionRecord[];
  index: CodeIndexEntry[];
}

function gridState({ factors, regions, index }: BuiltGridState): GridState {
  return { factors: freezeAll(factors), regions: freezeAll(regions), codes: new Set(regions.map((r) => r.code)), index };
}

/** Regions, factors and code index built from the sources, for the build to record. */
export function buildGridStateForManifest(): BuiltGridState {
  const { factors, regions, index } = loadState();
  return { factors: [...factors], regions: [...regions], index: [...index] };
}

/**
 * Takes the state the build recorded from these same sources (checked by the caller) instead of building
 * it from the @tgwf/co2 data modules on the first request of a restarted server that names a region.
 */
export function useBuiltGridState(built: BuiltGridState): void {
  state ??= gridState(built);
}

/** Every region that has at least one factor: countries (ISO 3166-1 alpha-2) first, then ISO 3166-2 subdivisions. */
export function loadRegions(): RegionRecord[] {
  return [...loadState().regions];
}

/** One record per source registry (data/factor-registries.json). */
export function loadRegistries(): RegistryRecord[] {
  registries ??= freezeAll(readRegistries());
  return [...registries];
}

/** All vintages of all regions, sorted by region code then valid_from. */
export function loadGridFactors(): GridFactorRecord[] {
  return [...loadState().factors];
}

/**
 * How a factor is cited in text (footprint data_sources, /reference/countries grid_factor_source): its source,
 * then its vintage. The one place the two are joined; `source` says who published it (and through which
 * package), `source_version` which edition, so no phrase appears twice.
 */
export function factorCitation(factor: { source: string; source_version: string }): string {
  return `${factor.source}, version ${factor.source_version}`;
}

export type FactorBasisProvenance = Pick<GridFactorRecord, 'basis' | 'published_value' | 'published_basis' | 'uplift' | 'uplift_source'>;

let basisIndex: Map<string, FactorBasisProvenance> | undefined;

/**
 * Basis, published value and uplift of a stored grid factor, found by region and valid_from in the reference data
 * the rows were loaded from (data/ and the packages; no copy in the database). Undefined for a row that is not part
 * of it (a factor inserted by hand).
 */
export function factorBasisProvenance(regionCode: string, validFrom: Date | string): FactorBasisProvenance | undefined {
  if (!basisIndex) {
    basisIndex = new Map();
    for (const f of loadState().factors) {
      basisIndex.set(`${f.region_code} ${f.valid_from}`, {
        basis: f.basis,
        published_value: f.published_value,
        published_basis: f.published_basis,
        uplift: f.uplift,
        uplift_source: f.uplift_source,
      });
    }
  }
  const day = typeof validFrom === 'string' ? validFrom : validFrom.toISOString().slice(0, 10);
  return basisIndex.get(`${regionCode} ${day}`);
}

/** `'de'` -> `'DE'`, `'us-ca'` -> `'US-CA'`, `' De '` -> `'DE'`; undefined when the code is not a known region. */
export function normaliseRegionCode(input: string): string | undefined {
  return normaliseCode(input, loadState().codes);
}

/**
 * The `n` known region codes closest to `input`, best first: by code (edit distance, alpha-3) and by name
 * (`'germany'` -> `DE`, `'california'` -> `US-CA`). For "unknown country 'DX'; closest: DZ, DE, DJ" messages.
 */
export function closestRegionCodes(input: string, n = 3): string[] {
  return rankClosestCodes(input, loadState().index, n);
}
