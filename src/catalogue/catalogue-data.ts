/**
 * The built-in device catalogue (data/catalogue/*.json, described in docs/catalogue.md), read
 * synchronously once and memoised. `test/catalogue-data.test.ts` validates the files; this loader
 * only normalises the optional parts (missing `aliases` / `specs` become empty) so that callers can
 * rely on the `CatalogueEntry` shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export interface CatalogueSpecs {
  weight_kg?: number;
  screen_size_inch?: number;
  screen_type?: string;
  processor_tdp_w?: number;
  ram_gb?: number;
  storage_gb?: number;
  storage_type?: string;
  battery_wh?: number;
  typical_consumption_kwh?: number;
}

export interface CatalogueEntry {
  brand: string;
  mpn: string;
  name: string;
  category: string;
  release_year: number;
  aliases: string[];
  specs: CatalogueSpecs;
  /** Per-field provenance where it differs from the defaults (see spec-provenance.ts). */
  spec_sources?: Readonly<Record<string, { basis?: 'published' | 'configuration' | 'derived'; url?: string; note?: string }>>;
  pcf?: { total_kg: number; lifetime_years: number; use_location: string; source_url?: string };
  source: { url?: string; note?: string };
}

/** data/catalogue/, resolved from this file so that the working directory does not matter. */
export const CATALOGUE_DIR = fileURLToPath(new URL('../../data/catalogue/', import.meta.url));

/** Reads every *.json file of `dir` (sorted by name, so the order is stable) into one frozen list. */
export function readCatalogueDir(dir: string = CATALOGUE_DIR): readonly CatalogueEntry[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const entries: CatalogueEntry[] = [];
  for (const file of files) {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    if (!Array.isArray(parsed)) throw new Error(`data/catalogue/${file}: top level must be an array`);
    for (const raw of parsed as Partial<CatalogueEntry>[]) {
      if (typeof raw?.brand !== 'string' || typeof raw.mpn !== 'string' || typeof raw.name !== 'string') {
        throw new Error(`data/catalogue/${file}: entry without brand, mpn or name: ${JSON.stringify(raw).slice(0, 120)}`);
      }
      entries.push(
        Object.freeze({
          ...(raw as CatalogueEntry),
          aliases: Array.isArray(raw.aliases) ? raw.aliases.filter((a): a is string => typeof a === 'string') : [],
          specs: raw.specs ?? {},
          source: raw.source ?? {},
        }),
      );
    }
  }
  return Object.freeze(entries);
}

let cached: readonly CatalogueEntry[] | undefined;

/** The catalogue, read from data/catalogue/*.json on first call and memoised for the process. */
export function loadCatalogue(): readonly CatalogueEntry[] {
  cached ??= readCatalogueDir();
  return cached;
}
