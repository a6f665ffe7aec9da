/**
 * Finds family templates in the built-in catalogue: one weight copied across many models of a
 * family, together with a copied configuration. A physical weight repeated over several
 * generations is not a per-model published figure (docs/catalogue.md, "Family templates").
 *
 * A family is brand + category + the words of the name with model numbers masked ("Dell OptiPlex # Micro").
 * A template is more than MAX_SHARED entries of one family with the same `weight_kg` and at least
 * MIN_OTHER_FIELDS other identical spec fields. Configuration alone (65 W TDP, 8 GB RAM) may be
 * shared by any number of models; only the weight makes the group a copy.
 */
export const MAX_SHARED = 3;
export const MIN_OTHER_FIELDS = 3;

export interface AuditedEntry {
  brand: string;
  name: string;
  category: string;
  specs?: Record<string, number | string | undefined>;
}

export interface FamilyTemplate {
  family: string;
  weight_kg: number;
  /** Names of the entries carrying the template weight (all entries of the family with that weight). */
  entries: string[];
  /** Names of the largest set sharing the weight and MIN_OTHER_FIELDS other fields. */
  copies: string[];
}

/** Word order and the spelled-out form factor do not make a new family ("OptiPlex Micro 7010" = "OptiPlex 3060 Micro"). */
export function templateFamilyOf(e: AuditedEntry): string {
  const words = e.name
    .replace(/small form factor/gi, 'SFF')
    .replace(/\d+/g, '#')
    .split(/\s+/)
    .sort();
  return `${e.brand} | ${e.category} | ${words.join(' ')}`;
}

function combinations<T>(items: readonly T[], size: number): T[][] {
  if (size === 0) return [[]];
  return items.flatMap((item, i) => combinations(items.slice(i + 1), size - 1).map((rest) => [item, ...rest]));
}

export function findFamilyTemplates(entries: readonly AuditedEntry[]): FamilyTemplate[] {
  const byFamilyWeight = new Map<string, AuditedEntry[]>();
  for (const e of entries) {
    const weight = e.specs?.weight_kg;
    if (typeof weight !== 'number') continue;
    const k = `${templateFamilyOf(e)}\u0000${weight}`;
    byFamilyWeight.set(k, [...(byFamilyWeight.get(k) ?? []), e]);
  }
  const templates: FamilyTemplate[] = [];
  for (const [k, group] of byFamilyWeight) {
    if (group.length <= MAX_SHARED) continue;
    const otherKeys = [...new Set(group.flatMap((e) => Object.keys(e.specs ?? {})))].filter((f) => f !== 'weight_kg').sort();
    let copies: AuditedEntry[] = [];
    for (const keys of combinations(otherKeys, MIN_OTHER_FIELDS)) {
      const buckets = new Map<string, AuditedEntry[]>();
      for (const e of group) {
        if (!keys.every((f) => e.specs?.[f] !== undefined)) continue;
        const values = JSON.stringify(keys.map((f) => e.specs?.[f]));
        buckets.set(values, [...(buckets.get(values) ?? []), e]);
      }
      for (const bucket of buckets.values()) if (bucket.length > copies.length) copies = bucket;
    }
    if (copies.length > MAX_SHARED) {
      const [family = '', weight = ''] = k.split('\u0000');
      templates.push({ family, weight_kg: Number(weight), entries: group.map((e) => e.name), copies: copies.map((e) => e.name) });
    }
  }
  return templates;
}
