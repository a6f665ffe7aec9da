/**
 * Fuzzy search over the built-in device catalogue (GET /v1/search, spec §2.6/§4.2) and the two
 * lookups the footprint chain uses: exact part number, and a "confident match" on a model string.
 *
 * Ranking is MiniSearch's (BM25+ with Levenshtein fuzzy and prefix matching); docs/search.md has the
 * measured comparison with Fuse.js and PostgreSQL pg_trgm that chose it. This module only decides
 * what goes into the index and the query:
 *
 * - text is folded (NFKD, accents stripped, lower case) and split into words; a word mixing letters
 *   and digits is also indexed as its parts ("optiplex7010" → optiplex, 7010; "g10" → g, 10), so a
 *   missing or extra space costs nothing;
 * - part numbers (mpn and aliases) are also indexed in a compact form without separators
 *   ("SM-S911B" → sms911b, "MLY33LL/A" → mly33lla), matched against the compacted query;
 * - only alphabetic words are searched fuzzily; a wrong digit is a different model.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { CatalogueEntry } from './catalogue-data.ts';

export type { CatalogueEntry, CatalogueSpecs } from './catalogue-data.ts';
export { loadCatalogue } from './catalogue-data.ts';

// ---------------------------------------------------------------------------------------------
// Text analysis (shared with bench/search-compare.ts so every candidate sees the same input)

/** NFKD, combining marks removed, lower case: "Portégé" → "portege". */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

/** Folded and without separators; `+` is kept because it names a model (Galaxy S23 vs S23+). */
export function compact(text: string): string {
  return fold(text).replace(/[^a-z0-9+]+/g, '');
}

/** Folded words: runs of letters/digits, with a trailing `+` kept ("ds920+", "s24+"). */
export function words(text: string): string[] {
  return fold(text).match(/[a-z0-9]+\+*/g) ?? [];
}

/** "optiplex7010" → [optiplex, 7010]; "s24+" → [s, 24+]; a word of one kind → []. */
export function letterDigitParts(word: string): string[] {
  const parts = word.match(/[a-z]+|[0-9]+\+*/g) ?? [];
  return parts.length > 1 ? parts : [];
}

/** Words plus the letter/digit parts of mixed words. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    out.push(w);
    for (const p of letterDigitParts(w)) out.push(p);
  }
  return out;
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s);

// ---------------------------------------------------------------------------------------------
// Brands

/** Other names people give a brand (folded, compacted) → the catalogue's brand (compacted). */
const BRAND_SYNONYMS: Record<string, string> = {
  hewlettpackard: 'hp',
  hpinc: 'hp',
  hewlettpackardenterprise: 'hpe',
  aruba: 'hpearuba',
  arubanetworks: 'hpearuba',
  hpaura: 'hpearuba',
  paloalto: 'paloaltonetworks',
  wd: 'westerndigital',
  kobo: 'rakutenkobo',
  polycom: 'poly',
  plantronics: 'poly',
  meraki: 'cisco',
  ciscomeraki: 'cisco',
  toshiba: 'dynabook',
  startech: 'startechcom',
  smart: 'smarttechnologies',
  konica: 'konicaminolta',
  kodak: 'kodakalaris',
  dellemc: 'dell',
  dellinc: 'dell',
  lenovogroup: 'lenovo',
  appleinc: 'apple',
  microsoftcorporation: 'microsoft',
  samsungelectronics: 'samsung',
  fujitsutechnologysolutions: 'fujitsu',
};

/** A caller's brand, compacted and mapped through the synonyms. */
export function canonicalBrand(brand: string): string {
  const c = compact(brand);
  return BRAND_SYNONYMS[c] ?? c;
}

/**
 * Whether `given` names the brand of `entry`: equal after compacting, a synonym of it, or one a
 * word-prefix of the other ("HPE" and "HPE Aruba", "Palo Alto" and "Palo Alto Networks").
 * "Toshiba" also names its own entries (Canvio disks, POS), not only Dynabook.
 */
export function brandMatches(entryBrand: string, given: string): boolean {
  const e = compact(entryBrand);
  const g = compact(given);
  if (!g) return true;
  if (e === g || e === (BRAND_SYNONYMS[g] ?? g)) return true;
  const ew = words(entryBrand).join(' ');
  const gw = words(given).join(' ');
  return (ew.startsWith(`${gw} `) || gw.startsWith(`${ew} `)) && gw.length >= 2;
}

// ---------------------------------------------------------------------------------------------
// The index

interface Doc {
  id: number;
  brand: string;
  name: string;
  mpn: string;
  aliases: string;
  codes: string;
}

/** Field boosts, tuned on test/catalogue/search-queries.json (see docs/search.md). */
const BOOST = { name: 2, aliases: 1.5, mpn: 1.5, brand: 0.6, codes: 3 };

const SEARCH_FIELDS = ['brand', 'name', 'mpn', 'aliases'];

/** Edit distance allowed for a query word: none for words with digits or shorter than 4. */
export function fuzziness(term: string): number | false {
  if (hasDigit(term) || term.length < 4) return false;
  return term.length >= 7 ? 2 : 1;
}

export interface SearchHit {
  entry: CatalogueEntry;
  score: number;
}

export class CatalogueIndex {
  readonly entries: readonly CatalogueEntry[];
  private readonly mini: MiniSearch<Doc>;
  /** compacted mpn / alias → entries, mpn hits first. */
  private readonly byCode = new Map<string, CatalogueEntry[]>();
  /** compacted name (with and without brand) and aliases → entries, for exact model matches. */
  private readonly byModel = new Map<string, CatalogueEntry[]>();
  /** Lenovo machine types (4 characters) → entry, for model strings like "20XWCTO1WW". */
  private readonly machineTypes = new Map<string, CatalogueEntry>();

  constructor(entries: readonly CatalogueEntry[]) {
    this.entries = entries;
    this.mini = new MiniSearch<Doc>({
      idField: 'id',
      fields: [...SEARCH_FIELDS, 'codes'],
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term || null,
      searchOptions: { boost: BOOST },
    });
    const docs: Doc[] = entries.map((e, id) => {
      const codes = [e.mpn, ...e.aliases].map(compact);
      return {
        id,
        brand: terms(e.brand).join(' '),
        name: terms(e.name).join(' '),
        mpn: terms(e.mpn).join(' '),
        aliases: e.aliases.flatMap(terms).join(' '),
        codes: [...new Set(codes)].join(' '),
      };
    });
    this.mini.addAll(docs);

    const add = (map: Map<string, CatalogueEntry[]>, key: string, e: CatalogueEntry) => {
      if (!key) return;
      const list = map.get(key);
      if (!list) map.set(key, [e]);
      else if (!list.includes(e)) list.push(e);
    };
    for (const e of entries) add(this.byCode, compact(e.mpn), e);
    for (const e of entries) for (const a of e.aliases) add(this.byCode, compact(a), e);
    for (const e of entries) {
      const b = compact(e.brand);
      for (const text of [e.name, ...e.aliases, e.mpn]) {
        const c = compact(text);
        add(this.byModel, c, e);
        if (c.startsWith(b) && c.length > b.length) add(this.byModel, c.slice(b.length), e);
      }
      if (compact(e.brand) === 'lenovo') {
        for (const code of [e.mpn, ...e.aliases]) if (/^[0-9a-z]{4}$/i.test(code)) this.machineTypes.set(compact(code), e);
      }
    }
  }

  /** Best first, at most `limit` (default 15). Queries with no word of 2+ characters find nothing. */
  search(query: string, limit = 15): SearchHit[] {
    const qTerms = [...new Set(terms(query))];
    if (qTerms.length === 0 || limit <= 0) return [];
    const qCompact = compact(query);
    const results = this.mini.search(
      {
        combineWith: 'OR',
        queries: [
          {
            queries: qTerms,
            fields: SEARCH_FIELDS,
            fuzzy: (t) => fuzziness(t),
            prefix: (t) => t.length >= 2,
            weights: { fuzzy: 0.5, prefix: 0.35 },
          },
          ...(qCompact.length >= 3 ? [{ queries: [qCompact], fields: ['codes'], prefix: true, weights: { fuzzy: 0, prefix: 0.5 } }] : []),
        ],
      },
      { tokenize: (s: string) => [s] },
    );
    return results.slice(0, limit).map((r: SearchResult) => ({ entry: this.entries[r.id as number]!, score: r.score }));
  }

  /** Exact part number (mpn or alias), ignoring case, spaces, hyphens and slashes; `brand` narrows. */
  findByPartNumber(partNumber: string, brand?: string): CatalogueEntry | undefined {
    const key = compact(partNumber);
    if (key.length < 2) return undefined;
    let found = this.byCode.get(key) ?? [];
    if (brand && compact(brand)) found = found.filter((e) => brandMatches(e.brand, brand));
    if (found.length <= 1) return found[0];
    // Several devices: an mpn beats an alias; still several (different brands) → ambiguous.
    const byMpn = found.filter((e) => compact(e.mpn) === key);
    return byMpn.length === 1 ? byMpn[0] : undefined;
  }

  /**
   * The device a model string names, or undefined unless the match is confident. `score` is the
   * confidence in (0, 1]: 1 for an exact name/alias/part-number match, otherwise the margin over
   * the runner-up, 1 - second/first. See docs/search.md for how the rules were measured.
   */
  matchModel(model: string, brand?: string): SearchHit | undefined {
    return matchModelWith(this, model, brand);
  }

  /** @internal */
  exactModel(model: string, brand?: string): CatalogueEntry[] {
    const key = compact(model);
    let found = this.byModel.get(key) ?? [];
    if (brand) {
      found = found.filter((e) => brandMatches(e.brand, brand));
      if (found.length === 0) {
        // "Dell Latitude 5440" with brand=Dell: drop the brand from the front of the model.
        const b = compact(brand);
        const canon = canonicalBrand(brand);
        for (const prefix of [b, canon]) {
          if (prefix && key.startsWith(prefix) && key.length > prefix.length) {
            found = (this.byModel.get(key.slice(prefix.length)) ?? []).filter((e) => brandMatches(e.brand, brand));
            if (found.length) break;
          }
        }
      }
    }
    return found;
  }

  /** @internal */
  lenovoMachineType(model: string): CatalogueEntry | undefined {
    const key = compact(model);
    // MTM strings: 4-character machine type + model (20XWCTO1WW, 21HD000LUS).
    if (key.length < 7 || key.length > 10) return undefined;
    return this.machineTypes.get(key.slice(0, 4));
  }
}

// ---------------------------------------------------------------------------------------------
// Confident model matching

/** Tokens that describe a configuration, not a model ("16gb", "i7", "512ssd", "14in"). */
const CONFIG_TOKEN = /^(?:\d+(?:gb|tb|mb|ghz|mhz|hz|w|wh|mah|in|inch|mm|k)|i[3579]|r[3579]|ryzen\d*|\d+(?:ssd|hdd|nvme|emmc)|\d{1,2}th|\d{1,2}nd|\d{1,2}rd|\d{1,2}st)$/;

/** The digit-bearing words of a model string that identify the model (all must be in the match). */
export function modelNumbers(model: string): string[] {
  return words(model).filter((w) => hasDigit(w) && !CONFIG_TOKEN.test(w));
}

/** Every digit run of an entry's name, aliases and mpn, plus its digit-bearing words. */
function entryNumbers(e: CatalogueEntry): Set<string> {
  const out = new Set<string>();
  for (const text of [e.name, e.mpn, ...e.aliases]) {
    for (const w of words(text)) {
      if (!hasDigit(w)) continue;
      out.add(w);
      out.add(w.replace(/\+$/, ''));
      for (const p of letterDigitParts(w)) out.add(p);
    }
    for (const run of fold(text).match(/[0-9]+/g) ?? []) out.add(run);
  }
  return out;
}

/** A query word with digits is present in the entry as a word or as its digit parts. */
function numbersAgree(queryNumbers: string[], e: CatalogueEntry): boolean {
  const have = entryNumbers(e);
  return queryNumbers.every((n) => {
    if (have.has(n)) return true;
    const parts = letterDigitParts(n);
    return parts.length > 0 && parts.every((p) => have.has(p) || !hasDigit(p)) && parts.some((p) => hasDigit(p));
  });
}

/** Minimum first/second score ratio for a fuzzy (not exact) match; measured in docs/search.md. */
export const MIN_MARGIN = 0.2;

function matchModelWith(index: CatalogueIndex, model: string, brand?: string): SearchHit | undefined {
  const m = model.trim();
  if (compact(m).length < 2) return undefined;

  // 1. Exact name, alias or part number (brand-narrowed). Several → ambiguous, unless one is an mpn.
  const exact = index.exactModel(m, brand);
  if (exact.length === 1) return { entry: exact[0]!, score: 1 };
  if (exact.length > 1) {
    const byPart = index.findByPartNumber(m, brand);
    return byPart ? { entry: byPart, score: 1 } : undefined;
  }
  const byPart = index.findByPartNumber(m, brand);
  if (byPart) return { entry: byPart, score: 1 };
  if (!brand || brandMatches('Lenovo', brand)) {
    const mt = index.lenovoMachineType(m);
    if (mt) return { entry: mt, score: 1 };
  }

  // 2. Fuzzy: the search ranking, restricted to the brand, every model number present, and a
  //    clear margin over the runner-up.
  const numbers = modelNumbers(m);
  if (numbers.length === 0) return undefined; // "ThinkPad", "MacBook Air": a line, not a model
  const query = brand ? `${brand} ${m}` : m;
  let hits = index.search(query, 30);
  if (brand) hits = hits.filter((h) => brandMatches(h.entry.brand, brand));
  const agreeing = hits.filter((h) => numbersAgree(numbers, h.entry));
  const first = agreeing[0];
  if (!first) return undefined;
  // The best-ranked hit overall must be the agreeing one, or a device whose numbers disagree was
  // ranked above it (the model string is more like something else).
  if (hits[0] !== first && hits[0]!.score > first.score * 1.05) return undefined;
  const second = agreeing[1];
  const margin = second ? 1 - second.score / first.score : 1;
  if (margin < MIN_MARGIN) return undefined;
  return { entry: first.entry, score: margin };
}
