/**
 * Per-field provenance of catalogue specs (docs/catalogue.md, "Per-field provenance").
 *
 * An entry may list `spec_sources` for some of its spec fields; whatever a field does not state (basis,
 * url, note) it takes from the entry-level `source` and the default basis of its key: the chosen typical configuration for RAM,
 * storage and processor TDP (a unit may differ), the model's published figure for everything else.
 */
import { SPEC_FIELDS } from '../footprint/engine/types.ts';
import type { CatalogueSpecs } from './catalogue-data.ts';

/** Closed vocabulary of where a spec value comes from. */
export const SPEC_BASES = ['published', 'configuration', 'derived'] as const;
export type SpecBasis = (typeof SPEC_BASES)[number];

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
