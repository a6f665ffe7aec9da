import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import type { SqlSession } from '../db/database.ts';
import { CATEGORIES } from '../footprint/engine/index.ts';
import {
  buildGridStateForManifest,
  loadGridFactors,
  loadRegions,
  loadRegistries,
  useBuiltGridState,
  type BuiltGridState,
} from './grid-data.ts';
import { loadCatalogue } from '../catalogue/catalogue-data.ts';
import { loadElectricityImpactFactors } from './impact-factors.ts';
import { resolveSpecSources } from '../catalogue/spec-provenance.ts';

interface Dataset {
  name: string;
  rows: readonly unknown[];
  /** Upserts the rows; rows are never deleted because calculations reference factor ids. */
  sql: string;
}

// Bulk upserts through json_to_recordset: one statement per dataset, the same on PGlite and PostgreSQL.
const DATASETS = (): Dataset[] => [
  {
    name: 'device_categories',
    rows: CATEGORIES.map((c) => ({
      id: c.id,
      name: c.name,
      group: c.group,
      lifetime_years: c.lifetime_years,
      fallback_kwh_per_year: c.fallback_kwh_per_year,
      defaults: c.defaults,
      parameters: c.parameters,
    })),
    sql: `INSERT INTO device_categories (id, name, "group", lifetime_years, fallback_kwh_per_year, defaults, parameters)
      SELECT id, name, "group", lifetime_years, fallback_kwh_per_year, defaults, parameters
      FROM json_to_recordset($1::json) AS r(id text, name text, "group" text, lifetime_years float8, fallback_kwh_per_year float8, defaults jsonb, parameters jsonb)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, "group" = EXCLUDED."group", lifetime_years = EXCLUDED.lifetime_years,
        fallback_kwh_per_year = EXCLUDED.fallback_kwh_per_year, defaults = EXCLUDED.defaults, parameters = EXCLUDED.parameters`,
  },
  {
    name: 'products',
    rows: loadCatalogue().map((e) => ({
      brand: e.brand,
      mpn: e.mpn,
      name: e.name,
      category: e.category,
      release_year: e.release_year,
      aliases: e.aliases,
      ...e.specs,
      pcf_total_kg: e.pcf?.total_kg,
      pcf_lifetime_years: e.pcf?.lifetime_years,
      pcf_use_location: e.pcf?.use_location,
      pcf_source_url: e.pcf?.source_url,
      source: e.source.url ?? 'built-in catalogue',
      source_note: e.source.note,
      spec_sources: resolveSpecSources(e.specs, e.spec_sources, e.source),
    })),
    sql: `INSERT INTO products (id, brand, mpn, name, category, release_year, aliases, weight_kg, screen_size_inch, screen_type, processor_tdp_w,
        ram_gb, storage_gb, storage_type, battery_wh, typical_consumption_kwh, pcf_total_kg, pcf_lifetime_years, pcf_use_location, pcf_source_url, source, source_note, spec_sources)
      SELECT gen_random_uuid(), brand, mpn, name, category, release_year, ARRAY(SELECT json_array_elements_text(aliases)), weight_kg, screen_size_inch, screen_type,
        processor_tdp_w, ram_gb, storage_gb, storage_type, battery_wh, typical_consumption_kwh, pcf_total_kg, pcf_lifetime_years, pcf_use_location, pcf_source_url, source, source_note, spec_sources
      FROM json_to_recordset($1::json) AS r(brand text, mpn text, name text, category text, release_year int, aliases json, weight_kg float8,
        screen_size_inch float8, screen_type text, processor_tdp_w float8, ram_gb float8, storage_gb float8, storage_type text, battery_wh float8,
        typical_consumption_kwh float8, pcf_total_kg float8, pcf_lifetime_years float8, pcf_use_location text, pcf_source_url text, source text, source_note text, spec_sources jsonb)
      ON CONFLICT (brand, mpn) DO UPDATE SET name = EXCLUDED.name, category = EXCLUDED.category, release_year = EXCLUDED.release_year,
        aliases = EXCLUDED.aliases, weight_kg = EXCLUDED.weight_kg, screen_size_inch = EXCLUDED.screen_size_inch, screen_type = EXCLUDED.screen_type,
        processor_tdp_w = EXCLUDED.processor_tdp_w, ram_gb = EXCLUDED.ram_gb, storage_gb = EXCLUDED.storage_gb, storage_type = EXCLUDED.storage_type,
        battery_wh = EXCLUDED.battery_wh, typical_consumption_kwh = EXCLUDED.typical_consumption_kwh, pcf_total_kg = EXCLUDED.pcf_total_kg,
        pcf_lifetime_years = EXCLUDED.pcf_lifetime_years, pcf_use_location = EXCLUDED.pcf_use_location, pcf_source_url = EXCLUDED.pcf_source_url,
        source = EXCLUDED.source, source_note = EXCLUDED.source_note, spec_sources = EXCLUDED.spec_sources, updated_at = now()`,
  },
  {
    name: 'regions',
    rows: loadRegions(),
    sql: `INSERT INTO regions (code, name, kind, parent_code)
      SELECT code, name, kind, parent_code FROM json_to_recordset($1::json) AS r(code text, name text, kind text, parent_code text)
      ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, kind = EXCLUDED.kind, parent_code = EXCLUDED.parent_code`,
  },
  {
    name: 'factor_registries',
    rows: loadRegistries(),
    sql: `INSERT INTO factor_registries (id, key, display_name, current_version, url, license, next_check_after)
      SELECT gen_random_uuid(), key, display_name, current_version, url, license, next_check_after
      FROM json_to_recordset($1::json) AS r(key text, display_name text, current_version text, url text, license text, next_check_after date)
      ON CONFLICT (key) DO UPDATE SET display_name = EXCLUDED.display_name, current_version = EXCLUDED.current_version,
        url = EXCLUDED.url, license = EXCLUDED.license, next_check_after = EXCLUDED.next_check_after`,
  },
  {
    name: 'emission_factors',
    rows: loadGridFactors(),
    sql: EMISSION_FACTORS_UPSERT,
  },
  {
    name: 'electricity_impact_factors',
    rows: loadElectricityImpactFactors(),
    sql: EMISSION_FACTORS_UPSERT,
  },
];

const EMISSION_FACTORS_UPSERT = `INSERT INTO emission_factors (id, type, region_code, value, unit, registry_id, source, source_version, source_url, source_license, valid_from, valid_to)
      SELECT gen_random_uuid(), r.type::"FactorType", r.region_code, r.value, r.unit, g.id, r.source, r.source_version, r.source_url, r.source_license, r.valid_from, r.valid_to
      FROM json_to_recordset($1::json) AS r(type text, region_code text, value float8, unit text, registry_key text, source text,
        source_version text, source_url text, source_license text, valid_from date, valid_to date)
      JOIN factor_registries g ON g.key = r.registry_key
      ON CONFLICT (type, region_code, valid_from) DO UPDATE SET value = EXCLUDED.value, unit = EXCLUDED.unit, registry_id = EXCLUDED.registry_id,
        source = EXCLUDED.source, source_version = EXCLUDED.source_version, source_url = EXCLUDED.source_url,
        source_license = EXCLUDED.source_license, valid_to = EXCLUDED.valid_to`;

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * Loads data/ and the packaged reference data into the database when their content changed
 * since the last load (by SHA-256), in one transaction. Returns the names of datasets loaded.
 */
export async function loadReferenceData(session: SqlSession): Promise<string[]> {
  const known = new Map(
    (await session.query<{ name: string; sha256: string }>('SELECT name, sha256 FROM reference_datasets')).map((r) => [r.name, r.sha256]),
  );
  const built = await builtDatasetHashes();
  if (built && Object.entries(built).every(([name, hash]) => known.get(name) === hash)) return [];
  const changed = DATASETS()
    .map((d) => {
      const json = JSON.stringify(d.rows);
      return { ...d, json, sha256: sha256(json) };
    })
    .filter((d) => known.get(d.name) !== d.sha256);
  if (changed.length === 0) return [];
  await session.exec('BEGIN');
  try {
    for (const d of changed) {
      await session.query(d.sql, [d.json]);
      await session.query(
        `INSERT INTO reference_datasets (name, sha256, row_count, loaded_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (name) DO UPDATE SET sha256 = EXCLUDED.sha256, row_count = EXCLUDED.row_count, loaded_at = now()`,
        [d.name, d.sha256, d.rows.length],
      );
    }
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK');
    throw error;
  }
  return changed.map((d) => d.name);
}

// Building the datasets to hash them is most of a restart's preparation, so `npm run build` records
// their hashes with a digest of data/; a start of the compiled code whose data/ still has that digest
// compares the recorded hashes instead, and takes the grid state (regions, factors, code index) the
// build recorded too. Run from src/ (tests, tsx) both are always computed.
const BUILD_MANIFEST = new URL('../../dist/reference-data.json', import.meta.url);
const DATA_DIR = new URL('../../data/', import.meta.url);
const COMPILED = import.meta.url.endsWith('.js');

interface BuildManifest {
  data_sha256: string;
  datasets: Record<string, string>;
  /** absent in a manifest written before the grid state was recorded */
  grid?: BuiltGridState;
}

/** The files under `dir`, as paths relative to it. */
async function filesUnder(dir: URL, prefix = ''): Promise<string[]> {
  const entries = await readdir(new URL(prefix, dir), { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`])));
  return nested.flat();
}

/** One digest of every file under data/ (names and contents). */
async function dataDigest(): Promise<string> {
  const names = (await filesUnder(DATA_DIR)).sort();
  // Read together: one file after another would take a turn of the event loop each, on the path of a restart.
  const contents = await Promise.all(names.map((name) => readFile(new URL(name, DATA_DIR))));
  const hash = createHash('sha256');
  names.forEach((name, i) => hash.update(`${name}\0`).update(contents[i]!).update('\0'));
  return hash.digest('hex');
}

/** Each dataset's SHA-256 as loadReferenceData computes it. */
export const referenceDatasetHashes = (): Record<string, string> =>
  Object.fromEntries(DATASETS().map((d) => [d.name, sha256(JSON.stringify(d.rows))]));

/** Written by `npm run build` next to the compiled code. */
export async function writeReferenceManifest(): Promise<void> {
  const manifest: BuildManifest = {
    data_sha256: await dataDigest(),
    datasets: referenceDatasetHashes(),
    grid: buildGridStateForManifest(),
  };
  await writeFile(BUILD_MANIFEST, `${JSON.stringify(manifest)}\n`);
}

/** The build's dataset hashes when they still describe data/ (undefined: compute them); its grid state is taken too. */
async function builtDatasetHashes(): Promise<Record<string, string> | undefined> {
  if (!COMPILED) return undefined;
  const manifest = await readFile(BUILD_MANIFEST, 'utf8').then(
    (text) => JSON.parse(text) as BuildManifest,
    () => undefined,
  );
  if (!manifest || manifest.data_sha256 !== (await dataDigest())) return undefined;
  if (manifest.grid) useBuiltGridState(manifest.grid);
  return manifest.datasets;
}
