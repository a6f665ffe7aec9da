/**
 * Per-field provenance of catalogue specs (docs/catalogue.md, "Per-field provenance").
 *
 * An entry may list `spec_sources` for some of its spec fields; whatever a field does not state (basis,
 * url, note) it takes from the entry-level `source` and the default basis of its key: the chosen typical configuration for RAM,
 * storage and processor TDP (a unit may differ), the model's published figure for everything else.
 */
import { ESTIMATE_BASES, getCategory, SPEC_FIELDS, specEstimates, type DeviceSpecs, type SpecField } from '../footprint/engine/index.ts';
import type { CatalogueEntry, CatalogueSpecs } from './catalogue-data.ts';

/** Closed vocabulary of where a catalogue's spec value comes from. */
export const SPEC_BASES = ['published', 'configuration', 'derived'] as const;
export type SpecBasis = (typeof SPEC_BASES)[number];

/**
 * Where a spec value of a search or identify result comes from: the catalogue's bases, the engine's
 * (ESTIMATE_BASES), or `not_estimable` (null: a category the engine does not know).
 */
export const RESULT_SPEC_BASES = [...SPEC_BASES, ...ESTIMATE_BASES, 'not_estimable'] as const;
export type ResultSpecBasis = (typeof RESULT_SPEC_BASES)[number];

export interface SpecSource {
  basis: SpecBasis;
  url?: string;
  note?: string;
}

/** Keys whose value describes a chosen configuration of the model, not a physical fact of it. */
const CONFIGURATION_KEYS: ReadonlySet<string> = new Set(['ram_gb', 'storage_gb', 'storage_type', 'processor_tdp_w']);

export function defaultSpecBasis(field: string): SpecBasis {
  return CONFIGURATION_KEYS.has(field) ? 'configuration' : 'published';
}

/** Provenance of every field present in `specs`, with the compact defaults expanded. */
export function resolveSpecSources(
  specs: CatalogueSpecs,
  specSources: Readonly<Record<string, Partial<SpecSource>>> | undefined,
  entrySource: { url?: string; note?: string },
): Record<string, SpecSource> {
  const resolved: Record<string, SpecSource> = {};
  for (const [field, value] of Object.entries(specs)) {
    if (value === undefined || value === null) continue;
    const listed = specSources?.[field];
    const url = listed?.url ?? entrySource.url;
    const note = listed?.note ?? entrySource.note;
    resolved[field] = {
      basis: listed?.basis ?? defaultSpecBasis(field),
      ...(url !== undefined ? { url } : {}),
      ...(note !== undefined ? { note } : {}),
    };
  }
  return resolved;
}

/**
 * One line per basis and source for the fields of `entry` that a result uses ("catalogue weight_kg,
 * screen_size_inch: published (Lenovo PSREF ThinkPad T14 Gen 3 Intel)"), for methodology.data_sources.
 */
export function describeSpecSources(
  entry: { specs: CatalogueSpecs; spec_sources?: Readonly<Record<string, Partial<SpecSource>>>; source: { url?: string; note?: string } },
  used: (field: string) => boolean,
): string[] {
  const groups = new Map<string, string[]>();
  // In the order of the spec fields, whatever the order of the stored keys (jsonb reorders them).
  const rank = (f: string) => {
    const i = (SPEC_FIELDS as readonly string[]).indexOf(f);
    return i < 0 ? SPEC_FIELDS.length : i;
  };
  const sources = Object.entries(resolveSpecSources(entry.specs, entry.spec_sources, entry.source)).sort(([a], [b]) => rank(a) - rank(b));
  for (const [field, s] of sources) {
    if (!used(field)) continue;
    const origin = s.note ?? s.url;
    const k = `${s.basis}${origin ? ` (${origin})` : ''}`;
    groups.set(k, [...(groups.get(k) ?? []), field]);
  }
  return [...groups].map(([basis, fields]) => `catalogue ${fields.join(', ')}: ${basis}`);
}

/** Every spec field of a result: a value, or null where spec_sources says why. */
export type FullSpecs = { [K in SpecField]-?: NonNullable<CatalogueSpecs[K]> | null };

export interface ResultSpecSource {
  field: SpecField;
  basis: ResultSpecBasis;
  url?: string;
  note?: string;
}

// Catalogue entries do not change (built-in ones are frozen; an Icecat entry is made per answer): computed once per entry.
const completed = new WeakMap<CatalogueEntry, { specs: FullSpecs; sources: ResultSpecSource[] }>();

/**
 * The specs of a search or identify result: every field, the catalogue's value where it has one,
 * else the value the footprint of this device uses (specEstimates: same category, specs and release
 * year as the footprint's lookup chain), with one provenance row per field in the order of SPEC_FIELDS.
 */
export function fullSpecs(entry: CatalogueEntry): { specs: FullSpecs; sources: ResultSpecSource[] } {
  const known = completed.get(entry);
  if (known) return known;
  const catalogue = resolveSpecSources(entry.specs, entry.spec_sources, entry.source);
  const category = getCategory(entry.category);
  const estimates = category ? specEstimates(category, entry.specs as DeviceSpecs, entry.release_year) : {};
  const specs = {} as Record<SpecField, number | string | null>;
  const sources: ResultSpecSource[] = [];
  for (const field of SPEC_FIELDS) {
    const own = catalogue[field];
    const estimate = estimates[field];
    if (own) {
      specs[field] = entry.specs[field] as number | string;
      sources.push({ field, ...own });
    } else if (estimate) {
      specs[field] = estimate.value;
      sources.push({ field, basis: estimate.basis, note: estimate.note });
    } else {
      specs[field] = null;
      sources.push({ field, basis: 'not_estimable', note: `category '${entry.category}' is not one the engine knows` });
    }
  }
  const result = { specs: specs as FullSpecs, sources };
  completed.set(entry, result);
  return result;
}
