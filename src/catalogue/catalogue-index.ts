/**
 * The search index over the built-in device catalogue (GET /v1/search, spec §2.6/§4.2) and the
 * exact lookups identification starts with: part number, model name, part numbers with a regional
 * or configuration suffix.
 *
 * Ranking is MiniSearch's (BM25+ with Levenshtein fuzzy and prefix matching), chosen over Fuse.js
 * and PostgreSQL pg_trgm by measurement (docs/search.md, bench/search-compare.ts). This module
 * decides what goes into the index and into the query, not how to score, and orders what the score
 * cannot tell apart:
 *
 * - text is folded and split into words (text.ts); a word mixing letters and digits is also
 *   indexed as its parts ("optiplex7010" → optiplex, 7010; "g10" → g, 10), so a missing or extra
 *   space costs nothing; "small form factor" → sff, "all-in-one" → aio, gen → generation on both sides;
 * - part numbers (mpn and aliases) are also indexed in a compact form without separators
 *   ("SM-S911B" → sms911b, "MLY33LL/A" → mly33lla) and matched against the compacted query, and a
 *   long part number with a suffix also searches its 4-5 character stem (Lenovo "21HD0015GE");
 * - only alphabetic words are searched fuzzily (2 edits from 5 letters, 1 for 4); a wrong digit is
 *   a different model;
 * - in search(), hits that matched the same words but not a number of the query rank by how close
 *   their model number is ("latitud 5440" lists the 5430 and 5450 before the 3120).
 *
 * Every lookup narrowed by a brand keeps only that brand's devices (brands.ts: brandMatches).
 */
import MiniSearch, { type Query, type SearchResult } from 'minisearch';
import type { CatalogueEntry } from './catalogue-data.ts';
import { analyse, compact, fold, hasDigit, isNumber, numberOf, terms } from './text.ts';
import { brandMatches, canonicalBrand, latinBrand } from './brands.ts';
import { entryNumbers } from './model-numbers.ts';

/** Apple part number: 5-character stem, region code, "/A" ("MLY33LL/A", "MLY33B/A", "MME73AM/A"). */
const APPLE_PART = /^([A-Z0-9]{5})[A-Z]{1,2}\/A$/i;

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

/** Relative weight of fuzzy and prefix matches (an exact match weighs 1). */
const FUZZY_WEIGHT = 0.5;
const PREFIX_WEIGHT = 0.35;
/** Boost of a code stem ("21hd" of "21HD0015GE"): enough to surface it, below any real match. */
const STEM_BOOST = 1;

const FUZZY2_MIN_LENGTH = 5;
const MAX_FUZZY_TERM = 20;
/** Query words searched; real queries have fewer, and each costs a pass over the index. */
const MAX_QUERY_TERMS = 12;
/**
 * Edit distance allowed for a query word: none for words with digits or shorter than 4 letters,
 * 1 for 4 letters, 2 from 5 (a transposition, the commonest typing slip, is 2 Levenshtein edits).
 */
export function fuzziness(term: string): number | false {
  // No device word is this long; fuzzy matching cost grows with the word, so long ones match exactly.
  if (hasDigit(term) || term.length < 4 || term.length > MAX_FUZZY_TERM) return false;
  return term.length >= FUZZY2_MIN_LENGTH ? 2 : 1;
}

/**
 * Leading parts of long part numbers that carry a configuration or region suffix: a Lenovo MTM
 * "21HD0015GE" / "20XWCTO1WW" names machine type 21HD / 20XW; an Apple "MLY33B/A" names MLY33.
 * Searched as prefixes of the compact codes, with a low boost.
 */
export function codeStems(query: string): string[] {
  const out = new Set<string>();
  for (const w of fold(query).split(/\s+/)) {
    const c = compact(w);
    // Code-like: letters and digits, a digit early, no long run of letters ("optiplex7010" is not).
    if (c.length < 7 || !/[a-z]/.test(c) || !/[0-9]/.test(c.slice(0, 5)) || /[a-z]{6,}/.test(c)) continue;
    out.add(c.slice(0, 4));
    out.add(c.slice(0, 5));
  }
  return [...out];
}

export interface SearchHit {
  entry: CatalogueEntry;
  score: number;
}

/** One page of search(): the first hits and how many devices matched in all. */
export interface SearchPage {
  total: number;
  hits: SearchHit[];
}

/**
 * How far a device's numbers are from each query number it did not match, in query order
 * (`latitude 5440` → Latitude 5430: [10], Latitude 3140: [2300]). Numbers that matched another
 * query number are left out (`t14 gen 7` compares Gen 5 with 7, not T14); a device without other
 * numbers is infinitely far.
 */
function distances(missing: readonly number[], matched: readonly number[], deviceNumbers: readonly number[]): number[] {
  const own = deviceNumbers.filter((d) => !matched.includes(d));
  return missing.map((n) => own.reduce((best, d) => Math.min(best, Math.abs(d - n)), Infinity));
}

function compareDistances(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/**
 * The first `limit` hits in score order, except that hits which matched the same query words in
 * the same way (exactly, or by prefix or typo) and lack some number of the query are reordered
 * among themselves by the closeness of their model numbers (distances()): BM25 tells such siblings
 * apart only by the length of their fields. Each group keeps the places the score gave it, so hits
 * that matched more or other words stay where they were.
 */
function closestFirst(
  results: readonly SearchResult[],
  queryNumbers: readonly string[],
  numbers: readonly number[][],
  limit: number,
): SearchResult[] {
  const page = results.slice(0, limit);
  if (queryNumbers.length === 0) return page;
  const groups = new Map<string, { places: number[]; missing: number[]; matched: number[] }>();
  results.forEach((r, place) => {
    const missing = queryNumbers.filter((n) => !r.queryTerms.includes(n));
    if (missing.length === 0) return;
    // Which query words matched, and whether exactly (T14 Gen 5) or as a prefix or typo (T14s Gen 5).
    const key = r.queryTerms
      .map((t) => (r.terms.includes(t) ? t : `~${t}`))
      .sort()
      .join(' ');
    const group = groups.get(key);
    if (group) group.places.push(place);
    // A group first met below the page has no place on it.
    else if (place < limit) {
      const matched = queryNumbers.filter((n) => !missing.includes(n));
      groups.set(key, { places: [place], missing: missing.map(numberOf), matched: matched.map(numberOf) });
    }
  });
  for (const { places, missing, matched } of groups.values()) {
    if (places.length < 2) continue;
    const byCloseness = places
      .map((place) => ({ result: results[place]!, far: distances(missing, matched, numbers[results[place]!.id as number]!) }))
      .sort((a, b) => compareDistances(a.far, b.far)); // stable: equal distances keep the score order
    for (let i = 0; i < places.length && places[i]! < limit; i++) page[places[i]!] = byCloseness[i]!.result;
  }
  return page;
}

function emptySearchIndex(): MiniSearch<Doc> {
  return new MiniSearch<Doc>({
    idField: 'id',
    fields: [...SEARCH_FIELDS, 'codes'],
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    searchOptions: { boost: BOOST },
  });
}

/** One search document per entry, its id the entry's place in `entries`. */
function searchDocs(entries: readonly CatalogueEntry[]): Doc[] {
  return entries.map((e, id) => {
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
}

export class CatalogueIndex {
  readonly entries: readonly CatalogueEntry[];
  private readonly mini: MiniSearch<Doc>;
  /** compacted mpn / alias → entries. */
  private readonly byCode = new Map<string, CatalogueEntry[]>();
  /** compacted name (with and without brand) and aliases → entries, for exact model matches. */
  private readonly byModel = new Map<string, CatalogueEntry[]>();
  /** Lenovo machine types (4 characters) → entry, for model strings like "20XWCTO1WW". */
  private readonly machineTypes = new Map<string, CatalogueEntry>();
  /** Apple part-number stems ("mly33" of MLY33LL/A) → entries, for other regions (MLY33B/A). */
  private readonly appleStems = new Map<string, CatalogueEntry[]>();
  /** Numbers in each device's name, by document id, for ranking by closeness (aliases carry part numbers: A3102). */
  private readonly numbers: number[][];
  /** The words numbersAgree looks a model number up in (entryNumbers), of every device; built on first use. */
  private deviceWords?: Set<string>;

  /** `search`: the entries' search index, when built already (build); else built here, in one go. */
  constructor(entries: readonly CatalogueEntry[], search?: MiniSearch<Doc>) {
    this.entries = entries;
    if (search) this.mini = search;
    else {
      this.mini = emptySearchIndex();
      this.mini.addAll(searchDocs(entries));
    }
    this.numbers = entries.map((e) => [...new Set(terms(e.name).filter(isNumber).map(numberOf))]);

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
      if (compact(e.brand) === 'apple') {
        for (const code of [e.mpn, ...e.aliases]) {
          const stem = APPLE_PART.exec(code.trim())?.[1];
          if (stem) add(this.appleStems, stem.toLowerCase(), e);
        }
      }
    }
  }

  /**
   * The index built a few hundred devices per turn of the event loop (the search index is most of the
   * work: one go holds every other request for about 200 ms), for a warm-up beside live requests.
   */
  static async build(entries: readonly CatalogueEntry[]): Promise<CatalogueIndex> {
    const search = emptySearchIndex();
    await search.addAllAsync(searchDocs(entries), { chunkSize: 400 });
    return new CatalogueIndex(entries, search);
  }

  /** Some device could agree with this model number (numbersAgree): its name, aliases or codes have it. */
  someDeviceHasNumber(modelNumber: string): boolean {
    this.deviceWords ??= new Set(this.entries.flatMap((e) => [...entryNumbers(e).words]));
    return this.deviceWords.has(modelNumber) || this.deviceWords.has(modelNumber.replace(/\+$/, ''));
  }

  /** Best first, at most `limit` (default 15). Queries with no letter or digit find nothing. */
  search(query: string, limit = 15): SearchHit[] {
    return this.searchPage(query, limit).hits;
  }

  /**
   * search() with the number of devices that matched. Hits that matched the same words of the
   * query rank by the closeness of their model numbers to the query's numbers they lack, so
   * `latitude 5441` lists the Latitude 5440 and 5450 before the 3120; the score decides otherwise.
   */
  searchPage(query: string, limit = 15): SearchPage {
    const { results, queryTerms } = this.rank(query);
    const hits = closestFirst(results, queryTerms.filter(isNumber), this.numbers, Math.max(0, limit)).map((r) => ({
      entry: this.entries[r.id as number]!,
      score: r.score,
    }));
    return { total: results.length, hits };
  }

  /**
   * @internal The score ranking, without the closeness order (matchModel's margins are measured on
   * it), with the terms of each hit that matched the query (exactly, by prefix or fuzzily).
   */
  searchDetailed(query: string, limit = 15): (SearchHit & { docTerms: Set<string> })[] {
    return this.rank(query)
      .results.slice(0, Math.max(0, limit))
      .map((r) => ({ entry: this.entries[r.id as number]!, score: r.score, docTerms: new Set(r.terms) }));
  }

  /** Every match, best score first, and the words searched. */
  private rank(query: string): { results: SearchResult[]; queryTerms: string[] } {
    const qTerms = [...new Set(terms(query))].slice(0, MAX_QUERY_TERMS);
    if (qTerms.length === 0) return { results: [], queryTerms: [] };
    const qCompact = compact(analyse(query));
    const queries: Query[] = [
      {
        queries: qTerms,
        fields: SEARCH_FIELDS,
        fuzzy: (t: string) => fuzziness(t),
        prefix: (t: string) => t.length >= 2,
        weights: { fuzzy: FUZZY_WEIGHT, prefix: PREFIX_WEIGHT },
      },
    ];
    if (qCompact.length >= 3) {
      queries.push({ queries: [qCompact], fields: ['codes'], prefix: true, weights: { fuzzy: 0, prefix: PREFIX_WEIGHT } });
    }
    const stems = codeStems(query);
    if (stems.length) {
      queries.push({
        queries: stems,
        fields: ['codes'],
        prefix: true,
        boost: { codes: STEM_BOOST },
        weights: { fuzzy: 0, prefix: PREFIX_WEIGHT },
      });
    }
    return { results: this.mini.search({ combineWith: 'OR', queries }, { tokenize: (s: string) => [s] }), queryTerms: qTerms };
  }

  /** Exact part number (mpn or alias), ignoring case, spaces, hyphens and slashes; `brand` narrows. */
  findByPartNumber(partNumber: string, brand?: string): CatalogueEntry | undefined {
    const key = compact(partNumber);
    if (key.length < 2) return undefined;
    let found = this.byCode.get(key) ?? [];
    if (brand) found = found.filter((e) => brandMatches(e.brand, brand));
    if (found.length <= 1) return found[0];
    // Several devices: an mpn beats an alias; still several (different brands) → ambiguous.
    const byMpn = found.filter((e) => compact(e.mpn) === key);
    return byMpn.length === 1 ? byMpn[0] : undefined;
  }

  /** @internal */
  exactModel(model: string, brand?: string): CatalogueEntry[] {
    const key = compact(model);
    let found = this.byModel.get(key) ?? [];
    if (brand) {
      found = found.filter((e) => brandMatches(e.brand, brand));
      if (found.length === 0) {
        // "Dell Latitude 5440" with brand=Dell: drop the brand from the front of the model.
        const b = compact(latinBrand(brand));
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

  /**
   * @internal A part number with a regional or configuration suffix the catalogue does not list:
   * Apple "MLY33B/A" (MLY33LL/A), HP "W1A53A#B19" (W1A53A), Lenovo MTM "21HD0015GE" (21HD).
   */
  partNumberVariant(code: string, brand?: string): CatalogueEntry | undefined {
    const c = code.trim();
    const ok = (e: CatalogueEntry | undefined) => (e && (!brand || brandMatches(e.brand, brand)) ? e : undefined);
    const hp = /^([a-z0-9]{5,8})#[a-z0-9]{2,4}$/i.exec(c);
    if (hp) return ok(this.findByPartNumber(hp[1]!, brand));
    const apple = APPLE_PART.exec(c);
    if (apple) {
      const list = this.appleStems.get(apple[1]!.toLowerCase()) ?? [];
      return list.length === 1 ? ok(list[0]) : undefined;
    }
    if (!brand || brandMatches('Lenovo', brand)) return this.lenovoMachineType(c);
    return undefined;
  }

  /** @internal */
  lenovoMachineType(model: string): CatalogueEntry | undefined {
    const key = compact(model);
    // MTM strings: 4-character machine type + model (20XWCTO1WW, 21HD000LUS), one word.
    if (/\s/.test(model.trim()) || key.length < 7 || key.length > 10 || !/^[0-9]{2}/.test(key)) return undefined;
    return this.machineTypes.get(key.slice(0, 4));
  }
}
