/**
 * I/O for the grid reference data: reads data/grid-factors/*.json and data/factor-registries.json,
 * and loads @tgwf/co2 (Electricity Maps + Ember figures) and i18n-iso-countries at run time.
 * Every file is validated; a malformed file fails loudly at load.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import type { ElectricityMapsYear, EmSubdivision, RegionalProxy, RegistryRecord, TypedFactorFile } from './grid-build.ts';

const require = createRequire(import.meta.url);
const DATA_DIR = new URL('../../data/', import.meta.url);

/** Files of typed-in figures, in data/grid-factors/. */
export const TYPED_FACTOR_FILES = ['us-egrid2022-states.json', 'cn-mee-provincial.json'] as const;

function readJson(relativePath: string): unknown {
  const url = new URL(relativePath, DATA_DIR);
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`grid data: cannot read ${url.pathname}: ${(error as Error).message}`);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`grid data: ${what} is invalid: ${z.prettifyError(result.error)}`);
  return result.data;
}

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const nonEmpty = z.string().trim().min(1);

const typedFactorSchema = z.object({
  region_code: z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/),
  name: nonEmpty,
  name_zh: nonEmpty.optional(),
  value: z.number().positive().lt(1.5),
  unit: z.enum(['kg CO2e/kWh', 'kg CO2/kWh']),
  source: nonEmpty,
  source_version: nonEmpty,
  source_url: nonEmpty.nullable(),
  source_license: nonEmpty.nullable(),
  valid_from: isoDate,
  valid_to: isoDate.nullable(),
});

const typedFileSchema = z.object({
  registry_key: nonEmpty,
  basis: z.enum(['direct_co2e', 'direct_co2']),
  uplift_country: z.string().regex(/^[A-Z]{2}$/),
  national: z.array(z.object({ year: z.number().int(), value: z.number().positive().lt(1.5), source: nonEmpty })).min(1),
  records: z.array(typedFactorSchema).min(1),
});

export function readTypedFactorFiles(): TypedFactorFile[] {
  return TYPED_FACTOR_FILES.map((file) => parse(typedFileSchema, readJson(`grid-factors/${file}`), `data/grid-factors/${file}`));
}

const emSubdivisionFile = z.object({
  zones: z.array(z.object({ zone: nonEmpty, iso_code: z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/), name: nonEmpty })).min(1),
});

export function readEmSubdivisions(): EmSubdivision[] {
  const file = 'grid-factors/electricity-maps-subdivisions.json';
  return parse(emSubdivisionFile, readJson(file), `data/${file}`).zones;
}

const proxyFile = z.object({
  proxies: z.array(z.object({ code: z.string().regex(/^[A-Z]{2}$/), aggregate: nonEmpty, m49: nonEmpty })),
});

export function readRegionalProxies(): RegionalProxy[] {
  const file = 'grid-factors/regional-proxies.json';
  return parse(proxyFile, readJson(file), `data/${file}`).proxies;
}

const registrySchema = z.array(
  z.object({
    key: nonEmpty,
    display_name: nonEmpty,
    current_version: nonEmpty,
    url: nonEmpty,
    license: nonEmpty,
    next_check_after: isoDate.nullable(),
  }),
);

export function readRegistries(): RegistryRecord[] {
  return parse(registrySchema, readJson('factor-registries.json'), 'data/factor-registries.json').map((r) => ({
    key: r.key,
    display_name: r.display_name,
    current_version: r.current_version,
    url: r.url,
    license: r.license,
    next_check_after: r.next_check_after,
  }));
}

/** Typed-in subdivision names (eGRID, MEE) and selected Electricity Maps zone names, by ISO 3166-2 code. */
export function subdivisionNames(typed: readonly TypedFactorFile[], em: readonly EmSubdivision[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const s of em) names.set(s.iso_code, s.name);
  for (const file of typed) for (const r of file.records) names.set(r.region_code, r.name);
  return names;
}

// ---------------------------------------------------------------- @tgwf/co2

const emZoneSchema = z.object({
  zone: z.object({ zoneName: z.string() }),
  carbonIntensity: z.object({ value: z.number().nullable().optional(), unit: z.literal('gCO2eq/kWh') }),
});
const emYearSchema = z.object({ data: z.record(z.string(), emZoneSchema), methodology: z.url() });
const co2DataSchema = z.object({
  averageIntensity: z.object({ data: z.record(z.string(), z.number()), type: z.literal('average') }),
  electricityMaps: z.record(z.string(), z.unknown()),
});

export interface Co2PackageData {
  version: string;
  electricityMaps: ElectricityMapsYear[];
  ember: Map<string, number>;
}

/** Version of an installed package, read from its package.json (found by walking up from its entry point). */
export function installedVersion(packageName: string): string {
  let dir = dirname(require.resolve(packageName));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === packageName && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`grid data: cannot find the package.json of ${packageName}`);
    dir = parent;
  }
}

/** Loads the Electricity Maps yearly data and the Ember averages from the installed @tgwf/co2. */
export function loadCo2Package(): Co2PackageData {
  const raw = parse(co2DataSchema, require('@tgwf/co2/data') as unknown, '@tgwf/co2/data');
  const years: ElectricityMapsYear[] = [];
  for (const [key, value] of Object.entries(raw.electricityMaps)) {
    const match = /^yearly(\d{4})$/.exec(key);
    if (!match) continue;
    const parsed = parse(emYearSchema, value, `@tgwf/co2 electricityMaps.${key}`);
    const zones = new Map<string, { name: string; gPerKwh: number }>();
    for (const [zone, z] of Object.entries(parsed.data)) {
      const g = z.carbonIntensity.value;
      if (typeof g === 'number') zones.set(zone, { name: z.zone.zoneName, gPerKwh: g });
    }
    years.push({ year: Number(match[1]), methodology: parsed.methodology, zones });
  }
  if (years.length === 0) throw new Error('grid data: @tgwf/co2 ships no Electricity Maps yearly data');
  return {
    version: installedVersion('@tgwf/co2'),
    electricityMaps: years.sort((a, b) => a.year - b.year),
    ember: new Map(Object.entries(raw.averageIntensity.data)),
  };
}

// ---------------------------------------------------------------- i18n-iso-countries

type I18nCountries = typeof import('i18n-iso-countries');

export interface CountryNames {
  codes: Set<string>;
  name: (alpha2: string) => string | undefined;
  aliases: (alpha2: string) => string[];
  alpha3ToAlpha2: (alpha3: string) => string | undefined;
  alpha2ToAlpha3: (alpha2: string) => string | undefined;
}

/** ISO 3166-1 codes and English names from i18n-iso-countries (English locale only). */
export function loadCountryNames(): CountryNames {
  const lib = require('i18n-iso-countries/index.js') as I18nCountries;
  lib.registerLocale(require('i18n-iso-countries/langs/en.json') as Parameters<I18nCountries['registerLocale']>[0]);
  return {
    codes: new Set(Object.keys(lib.getAlpha2Codes())),
    name: (code) => lib.getName(code, 'en') ?? undefined,
    aliases: (code) => lib.getName(code, 'en', { select: 'all' }) ?? [],
    alpha3ToAlpha2: (alpha3) => lib.alpha3ToAlpha2(alpha3),
    alpha2ToAlpha3: (alpha2) => lib.alpha2ToAlpha3(alpha2),
  };
}
