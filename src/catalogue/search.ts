/**
 * Fuzzy search over the built-in device catalogue (GET /v1/search, spec §2.6/§4.2) and the two
 * lookups the footprint chain uses: exact part number, and a "confident match" on a model string.
 *
 * Ranking is MiniSearch's (BM25+ with Levenshtein fuzzy and prefix matching), chosen over Fuse.js
 * and PostgreSQL pg_trgm by measurement (docs/search.md, bench/search-compare.ts). This module
 * decides what goes into the index and into the query, not how to score, and orders what the score
 * cannot tell apart:
 *
 * - text is folded (NFKD, accents stripped, lower case) and split into words; a word mixing letters
 *   and digits is also indexed as its parts ("optiplex7010" → optiplex, 7010; "g10" → g, 10), so a
 *   missing or extra space costs nothing; "small form factor" → sff, "all-in-one" → aio, gen →
 *   generation on both sides;
 * - part numbers (mpn and aliases) are also indexed in a compact form without separators
 *   ("SM-S911B" → sms911b, "MLY33LL/A" → mly33lla) and matched against the compacted query, and a
 *   long part number with a suffix also searches its 4-5 character stem (Lenovo "21HD0015GE");
 * - only alphabetic words are searched fuzzily (2 edits from 5 letters, 1 for 4); a wrong digit is
 *   a different model;
 * - in search(), hits that matched the same words but not a number of the query rank by how close
 *   their model number is ("latitud 5440" lists the 5430 and 5450 before the 3120).
 *
 * matchModel() adds rules on top of the ranking to decide when a match is confident (every model
 * number of the string in the device, every word matched, a margin over the runner-up); the
 * thresholds come from bench/search-compare.ts --match.
 */
import MiniSearch, { type Query, type SearchResult } from 'minisearch';
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

/** Words that describe a configuration, not a model ("16gb", "i7", "512ssd", "14in", "9th"). */
export const CONFIG_WORD =
  /^(?:\d+(?:gb|tb|mb|ghz|mhz|hz|w|wh|mah|in|inch|mm|k)|i[3579]|r[3579]|ryzen\d*|\d+(?:ssd|hdd|nvme|emmc))$/;

/** Phrases written several ways, folded to the short form on both sides of the index. */
const PHRASES: [RegExp, string][] = [
  [/\bsmall form factor\b/g, 'sff'],
  [/\ball[ -]?in[ -]?one\b/g, 'aio'],
];

/** Words written several ways → one form, applied to words and to letter/digit parts ("Gen11"). */
const WORD_FORMS: ReadonlyMap<string, string> = new Map([['gen', 'generation']]);
const wordForm = (w: string): string => WORD_FORMS.get(w) ?? w;

/** Folded text with the phrase synonyms applied. */
export function analyse(text: string): string {
  let t = fold(text);
  for (const [re, short] of PHRASES) t = t.replace(re, short);
  return t;
}

/** Words plus the letter/digit parts of mixed words (configuration words stay whole). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(analyse(text))) {
    out.push(wordForm(w));
    if (!CONFIG_WORD.test(w)) for (const p of letterDigitParts(w)) out.push(wordForm(p));
  }
  return out;
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s);

/** Apple part number: 5-character stem, region code, "/A" ("MLY33LL/A", "MLY33B/A", "MME73AM/A"). */
const APPLE_PART = /^([A-Z0-9]{5})[A-Z]{1,2}\/A$/i;

// ---------------------------------------------------------------------------------------------
// Brands

/** Other names people give a brand (folded, compacted) → the catalogue's brand (compacted). */
const BRAND_SYNONYMS: ReadonlyMap<string, string> = new Map(Object.entries({
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
}));

/** A caller's brand, compacted and mapped through the synonyms. */
export function canonicalBrand(brand: string): string {
  const c = compact(brand);
  return BRAND_SYNONYMS.get(c) ?? c;
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
  if (e === g || e === BRAND_SYNONYMS.get(g)) return true;
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

/** A word that is a number, with the `+` of a model kept ("424+" of DS424+). */
const isNumber = (term: string): boolean => /^[0-9]+\+*$/.test(term);
const numberOf = (term: string): number => Number.parseInt(term, 10);

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
function closestFirst(results: readonly SearchResult[], queryNumbers: readonly string[], numbers: readonly number[][], limit: number): SearchResult[] {
  const page = results.slice(0, limit);
  if (queryNumbers.length === 0) return page;
  const groups = new Map<string, { places: number[]; missing: number[]; matched: number[] }>();
  results.forEach((r, place) => {
    const missing = queryNumbers.filter((n) => !r.queryTerms.includes(n));
    if (missing.length === 0) return;
    // Which query words matched, and whether exactly (T14 Gen 5) or as a prefix or typo (T14s Gen 5).
    const key = r.queryTerms.map((t) => (r.terms.includes(t) ? t : `~${t}`)).sort().join(' ');
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
    const hits = closestFirst(results, queryTerms.filter(isNumber), this.numbers, Math.max(0, limit))
      .map((r) => ({ entry: this.entries[r.id as number]!, score: r.score }));
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
      queries.push({ queries: stems, fields: ['codes'], prefix: true, boost: { codes: STEM_BOOST }, weights: { fuzzy: 0, prefix: PREFIX_WEIGHT } });
    }
    return { results: this.mini.search({ combineWith: 'OR', queries }, { tokenize: (s: string) => [s] }), queryTerms: qTerms };
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

// ---------------------------------------------------------------------------------------------
// Confident model matching

/** The digit-bearing words of a model string that identify the model (all must be in the match). */
export function modelNumbers(model: string): string[] {
  return words(analyse(model)).filter((w) => hasDigit(w) && !CONFIG_WORD.test(w));
}

/**
 * Measures stated in a text, by unit: storage in GB ("1tb" → storage 1000), sizes in mm, power in
 * W or Wh, ... A measure of the query contradicts an entry that states the same unit with other
 * values ("2TB" vs "1TB", "40mm" vs "44mm").
 */
function measures(text: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const w of words(text)) {
    const m = /^(\d+)(mb|gb|tb|mm|w|wh|mah|hz|k)$/.exec(w);
    if (!m) continue;
    const unit = m[2] === 'mb' || m[2] === 'gb' || m[2] === 'tb' ? 'storage' : m[2]!;
    const value = Number(m[1]) * (m[2] === 'tb' ? 1000 : m[2] === 'mb' ? 0.001 : 1);
    out.set(unit, [...(out.get(unit) ?? []), value]);
  }
  return out;
}

/** Same measure: storage within 3 % (1 TB = 1000 or 1024 GB), anything else equal. */
const sameMeasure = (unit: string, a: number, b: number): boolean =>
  unit === 'storage' ? Math.abs(a - b) <= 0.03 * Math.max(a, b) : a === b;

const isYear = (w: string): boolean => /^(19[89]\d|20[0-3]\d)$/.test(w);

interface EntryNumbers {
  /** Words of name and aliases, their runs of 2-3 consecutive words joined, and the compact codes. */
  words: Set<string>;
  /** Model numbers of the name (digit-bearing words, brand and configuration words left out). */
  nameNumbers: string[];
  measures: Map<string, number[]>;
}

const numbersCache = new WeakMap<CatalogueEntry, EntryNumbers>();

function entryNumbers(e: CatalogueEntry): EntryNumbers {
  let n = numbersCache.get(e);
  if (n) return n;
  const set = new Set<string>();
  for (const text of [e.name, ...e.aliases]) {
    const ws = words(analyse(text));
    ws.forEach((w, i) => {
      set.add(w);
      set.add(w.replace(/\+$/, ''));
      if (i + 1 < ws.length) set.add(w + ws[i + 1]);
      if (i + 2 < ws.length) set.add(w + ws[i + 1] + ws[i + 2]);
    });
  }
  for (const code of [e.mpn, ...e.aliases]) set.add(compact(code));
  const brandWords = new Set(words(e.brand));
  // Years describe a release ("MacBook Air 13-inch (M2, 2022)"); a query need not repeat them.
  const nameNumbers = words(analyse(e.name)).filter((w) => hasDigit(w) && !CONFIG_WORD.test(w) && !brandWords.has(w) && !isYear(w));
  n = { words: set, nameNumbers, measures: measures([e.name, ...e.aliases].join(' ')) };
  numbersCache.set(e, n);
  return n;
}

/**
 * Every model number of the query is a word of the entry's name or aliases, or a run of 2-3 of
 * them written together ("gen11" ~ "Gen 11", "t14gen4" ~ "T14 Gen 4"), or one of its part numbers;
 * and no measure of the query contradicts the entry's ("2TB" vs "1TB", "40mm" vs "44mm").
 */
export function numbersAgree(model: string, e: CatalogueEntry): boolean {
  const have = entryNumbers(e);
  if (!modelNumbers(model).every((n) => have.words.has(n) || have.words.has(n.replace(/\+$/, '')))) return false;
  for (const [unit, values] of measures(model)) {
    const theirs = have.measures.get(unit);
    if (theirs && !values.every((v) => theirs.some((t) => sameMeasure(unit, v, t)))) return false;
  }
  return true;
}

/** The entry's name has no model number the query lacks ("SR250" does not explain "SR250 V2"). */
export function numbersExplained(model: string, e: CatalogueEntry): boolean {
  const q = new Set(terms(model));
  const joined = compact(analyse(model));
  return entryNumbers(e).nameNumbers.every((n) => q.has(n) || joined.includes(n));
}

/** Words a model string may carry that name no model ("Latitude 5440 laptop", "Surface Pro 9 for Business"). */
const NOISE_WORDS = new Set(
  ('laptop notebook computer desktop monitor display phone smartphone tablet printer series business edition ' +
    'model with inch for the and pc new used refurbished ssd hdd nvme emmc ram memory storage').split(' '),
);

/**
 * Every word of the entry's name (brand, years and noise words aside) was matched by the query,
 * as the search saw it (typos and prefixes included): "iPhone 13 Pro" explains the 13 Pro, not
 * the 13 Pro Max.
 */
function nameExplained(e: CatalogueEntry, docTerms: Set<string>, alsoIgnore?: ReadonlySet<string>): boolean {
  const brandWords = new Set(words(e.brand));
  return words(analyse(e.name)).every((w) => {
    if (brandWords.has(w) || NOISE_WORDS.has(w) || isYear(w) || CONFIG_WORD.test(w) || docTerms.has(wordForm(w)) || alsoIgnore?.has(w)) return true;
    const parts = letterDigitParts(w);
    return parts.length > 0 && parts.every((p) => docTerms.has(wordForm(p)));
  });
}

/**
 * Alphabetic words of the model string (2+ letters, brand and noise words aside) that the matched
 * device must match too, typos included: "Pro", "Max", "Mini", "Tiny", "Rugged" name variants.
 */
function wordsToMatch(model: string, brand?: string): string[] {
  const brandWords = new Set(brand ? words(brand) : []);
  const isBrand = (w: string) => brandWords.has(w) || BRAND_SYNONYMS.has(w) || (brand !== undefined && brandMatches(brand, w));
  return [...new Set(terms(model))].filter((w) => !hasDigit(w) && w.length >= 2 && !NOISE_WORDS.has(w) && !isBrand(w));
}

/** Optimal-string-alignment distance (a transposition costs 1), giving up beyond `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = max + 1;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
  }
  return d[a.length]![b.length]!;
}

/**
 * A query word the device must match: one of its matched terms exactly, or with one slip (a
 * wrong, missing, extra or swapped letter; two from 8 letters). Stricter than the search's own
 * fuzziness, and no prefixes: "Mac" is not "MacBook", "Pro" is not "ProBook".
 */
function wordMatched(word: string, docTerms: Set<string>): boolean {
  if (docTerms.has(word) || docTerms.has(`${word}+`)) return true;
  if (word.length < 4) return false;
  const max = word.length >= 8 ? 2 : 1;
  for (const d of docTerms) if (editDistance(word, d.replace(/\+$/, ''), max) <= max) return true;
  return false;
}

/** A word of a device's name the model string has: as a term, as letter/digit parts, inside the joined string, or with a typing slip (wordMatched's). */
function nameWordInString(w: string, read: ReadonlySet<string>, joined: string): boolean {
  if (read.has(wordForm(w))) return true;
  const parts = letterDigitParts(w);
  if (parts.length > 0 && parts.every((p) => read.has(wordForm(p)))) return true;
  // a code written together ("t14gen4"); a bare number only as a word ("4" is not in "e14")
  if (hasDigit(w)) return !isNumber(w) && joined.includes(w);
  return [...read].some((t) => !hasDigit(t) && t.length >= 4 && editDistance(t, w, t.length >= 8 ? 2 : 1) <= (t.length >= 8 ? 2 : 1));
}

/** Words that make a variant of a model when they follow it ("Latitude 9999 Rugged", "ThinkPad 99e Yoga", "Galaxy Z Fold"). */
const VARIANT_WORDS: ReadonlySet<string> = new Set(
  'pro max plus ultra mini lite xl fe fold flip yoga rugged extreme chromebook aero nano tiny slim x360 watch'.split(' '),
);

/**
 * Words of the device's name that the model string lacks and that make the device another one
 * (issue 15.5, never a wrong device):
 * - after the last word the string has, a word with a digit or a variant word: a generation or
 *   revision (a "ThinkPad X99" is not the "X99 Gen 4", a "P99q" not the "P99q-20", a "Latitude
 *   9999" not the "9999 2-in-1") or a variant (a "ThinkPad 99e" is not the "99e Yoga Gen 6");
 * - between two words the string has, a word of the line name before the device's first number
 *   (a "Pixel 9" is not the "Pixel Watch 9", a "Surface Studio 9" not the "Surface Laptop Studio
 *   9") or a generation (a "ThinkBook 99 ITL" is not the "ThinkBook 99 G2 ITL").
 * Left out may be: a line name before the first word the string has ("U2422H" is the UltraSharp
 * U2422H, "470 G8" the ProBook 470 G8), a size or descriptor after the first number ("XPS 9315" is
 * the XPS 13 9315, "MacBook Air M2 13" the "MacBook Air 13-inch (M2)", "X1 Carbon 11" the "X1
 * Carbon Gen 11"), a descriptor at the end ("… Monitor", "… Workstation", "27UK850" the
 * "27UK850-W"), brand, years, configuration and processor words (variants, see areVariants); and
 * any word when the string carries one of the device's part numbers or says one of its aliases
 * entirely.
 */
export function distinguishingWords(model: string, e: CatalogueEntry): string[] {
  const read = new Set(terms(model));
  const joined = compact(analyse(model));
  // A part number of the device in the string names it whatever words it leaves out ("Galaxy S20 FE (<a part number of the 5G model>)" is the S20 FE 5G).
  if ([e.mpn, ...e.aliases].some((code) => /[0-9]/.test(code) && !/\s/.test(code.trim()) && compact(code).length >= 6 && joined.includes(compact(code)))) return [];
  const brandWords = new Set(words(e.brand));
  const name = words(analyse(e.name)).filter((w) => !brandWords.has(w) && !isYear(w) && !CONFIG_WORD.test(w) && !PROCESSOR_WORDS.has(w));
  const has = name.map((w) => nameWordInString(w, read, joined));
  const first = has.indexOf(true);
  const last = has.lastIndexOf(true);
  const firstNumber = name.findIndex(hasDigit);
  if (first < 0) return [];
  const lacking = name.filter((w, i) => {
    if (has[i] || i < first) return false;
    if (i > last) return hasDigit(w) || VARIANT_WORDS.has(w);
    return (!hasDigit(w) && (firstNumber < 0 || i < firstNumber)) || /^g(?:en)?\d{1,2}$/.test(w);
  });
  // An alias the string says entirely (a line name in front aside) is the catalogue's word that
  // the shorter name means this device ("Kindle Paperwhite 5" is the 11th generation).
  const saysAlias = (alias: string) => {
    // processor words too: "Framework Laptop 13 AMD" is not said by "Framework Laptop 13"
    const ws = words(analyse(alias)).filter((w) => !brandWords.has(w) && !isYear(w) && !CONFIG_WORD.test(w));
    const found = ws.map((w) => nameWordInString(w, read, joined));
    const from = found.indexOf(true);
    return from >= 0 && ws.every((w, i) => found[i] || (i < from && !hasDigit(w)));
  };
  return lacking.length && e.aliases.some(saysAlias) ? [] : lacking;
}

/** Minimum margin 1 - second/first of a fuzzy (not exact) match; measured in docs/search.md. */
export const MIN_MARGIN = 0.2;
/** A better-ranked device with other numbers vetoes the match when it scores this much higher. */
const CLOSER_ELSEWHERE = 1.5;

/** How a model string was (or was not) matched; `margin` is 1 for exact matches. */
export interface ModelMatchDetail {
  hit?: SearchHit;
  kind: 'exact' | 'part-number' | 'fuzzy' | 'none';
  margin: number;
  reason?: string;
  /**
   * When no device is confident because several tie and they are variants of one model (same
   * brand, category and model numbers, names differing only in words the string lacks: "ThinkPad
   * T14 Gen 3" → its Intel and AMD variants), those devices, best first.
   */
  variants?: CatalogueEntry[];
}

/** Words of a catalogue name that name the processor of a variant ("ThinkPad T14 Gen 3 AMD"). */
const PROCESSOR_WORDS: ReadonlySet<string> = new Set(['intel', 'amd', 'ryzen', 'snapdragon', 'qualcomm']);

/** A device's name without its processor words: the same for the variants of one model. */
const withoutProcessor = (e: CatalogueEntry): string => words(analyse(e.name)).filter((w) => !PROCESSOR_WORDS.has(w)).join(' ');

/** At most this many devices are treated as variants of one model; more is a product line. */
export const MAX_VARIANTS = 4;

/**
 * Devices that are variants of one model: 2 to MAX_VARIANTS of them, one brand, one category, the
 * same model numbers in their names ("T14 Gen 3 Intel" and "T14 Gen 3 AMD"; not "840 G9" and "840 G10").
 */
export function areVariants(entries: readonly CatalogueEntry[]): boolean {
  if (entries.length < 2 || entries.length > MAX_VARIANTS) return false;
  const [a] = entries;
  const numbersKey = (e: CatalogueEntry) => [...new Set(entryNumbers(e).nameNumbers)].sort().join(' ');
  const key = numbersKey(a!);
  return entries.every((e) => compact(e.brand) === compact(a!.brand) && e.category === a!.category && numbersKey(e) === key);
}

/** @internal matchModel before the margin threshold, for tests and bench/search-compare.ts. */
export function modelMatchDetail(index: CatalogueIndex, model: string, brand?: string): ModelMatchDetail {
  const m = model.trim();
  if (compact(m).length < (brand ? 1 : 2)) return { kind: 'none', margin: 0, reason: 'empty' };

  // 1. Exact part number, name or alias (brand-narrowed); several devices → ambiguous. Then part
  //    numbers with a suffix the catalogue does not list (region, configuration).
  const byPart = index.findByPartNumber(m, brand);
  if (byPart) return { hit: { entry: byPart, score: 1 }, kind: 'part-number', margin: 1 };
  const exact = index.exactModel(m, brand);
  if (exact.length === 1) return { hit: { entry: exact[0]!, score: 1 }, kind: 'exact', margin: 1 };
  if (exact.length > 1) {
    return { kind: 'none', margin: 0, reason: `ambiguous: ${exact.length} devices have this name`, ...(areVariants(exact) ? { variants: exact } : {}) };
  }
  const variant = index.partNumberVariant(m, brand);
  if (variant) return { hit: { entry: variant, score: 1 }, kind: 'part-number', margin: 1 };

  // 2. Fuzzy: the search ranking, restricted to the brand, to devices with every model number of
  //    the query, and to devices that matched every other word of it (typos included).
  //    Preferred among those: devices whose name the query explains entirely, then devices whose
  //    name has no number the query lacks ("ThinkSystem SR250" is the SR250, not the SR250 V2).
  //    Confidence is the margin over the next device of the same tier.
  const numbers = modelNumbers(m);
  // A model number no device has (an unknown model): numbersAgree would refuse every hit, so the
  // search, most of the time of an unknown name, is skipped.
  if (!numbers.every((n) => index.someDeviceHasNumber(n))) return { kind: 'none', margin: 0, reason: 'no device with these model numbers' };
  let hits = index.searchDetailed(brand ? `${brand} ${m}` : m, 30);
  if (brand) hits = hits.filter((h) => brandMatches(h.entry.brand, brand));
  const needed = wordsToMatch(m, brand);
  const agreeing = hits.filter((h) => numbersAgree(m, h.entry) && needed.every((w) => wordMatched(w, h.docTerms)) && distinguishingWords(m, h.entry).length === 0);
  const numbersOk = agreeing.filter((h) => numbersExplained(m, h.entry));
  const explained = numbersOk.filter((h) => nameExplained(h.entry, h.docTerms));
  // Without a model number only a device named by the query entirely will do ("Switch Lite"),
  // never a line ("MacBook Pro", "ThinkPad").
  const pool = explained.length ? explained : numbers.length === 0 ? [] : numbersOk.length ? numbersOk : agreeing;
  const first = pool[0];
  if (!first) return { kind: 'none', margin: 0, reason: numbers.length ? 'no device with these model numbers' : 'no device named by these words' };
  // A device ranked clearly above (numbers disagreeing, or unexplained): the string looks more
  // like that one, so neither is a confident match.
  if (hits[0] !== first && hits[0]!.score > first.score * CLOSER_ELSEWHERE) {
    return { kind: 'none', margin: 0, reason: `closer to ${hits[0]!.entry.name}` };
  }
  const second = pool[1];
  const margin = second ? Math.max(0, 1 - second.score / first.score) : 1;
  if (margin < MIN_MARGIN && pool !== agreeing) {
    // The devices the margin cannot tell apart, from the tiers whose names have no model number
    // the string lacks (never a line: "EliteBook 840"), are variants when their names differ only
    // in the processor ("… T14 Gen 3 Intel", "… AMD"); when other devices tie too, only variants
    // whose names the string explains but for the processor ("X13 Gen 1" → its Intel and AMD
    // variants, not the "X13 Yoga Gen 1").
    const tied = pool.filter((h) => h.score >= first.score * (1 - MIN_MARGIN));
    const explainedTied = tied.filter((h) => nameExplained(h.entry, h.docTerms, PROCESSOR_WORDS));
    const group = [tied, explainedTied].find((hs) => hs.length >= 2 && hs.every((h) => withoutProcessor(h.entry) === withoutProcessor(hs[0]!.entry)));
    const variants = group?.map((h) => h.entry);
    if (variants && areVariants(variants)) return { hit: { entry: first.entry, score: margin }, kind: 'fuzzy', margin, variants };
  }
  return { hit: { entry: first.entry, score: margin }, kind: 'fuzzy', margin };
}

function matchModelWith(index: CatalogueIndex, model: string, brand?: string): SearchHit | undefined {
  const d = modelMatchDetail(index, model, brand);
  return d.hit && d.margin >= MIN_MARGIN ? d.hit : undefined;
}

// ---------------------------------------------------------------------------------------------
// Variants of one model (issue: "ThinkPad T14 Gen 3" is an Intel and an AMD device)

export type ProcessorVendor = 'amd' | 'intel';

/** Processor descriptions written into model strings, by vendor (folded text). */
const PROCESSOR_PATTERNS: [ProcessorVendor, RegExp][] = [
  ['amd', /\b(?:amd\s+)?ryzen(?:\s+ai)?(?:\s*[3579])?(?:\s+pro)?(?:[\s-]+\d{3,4}[a-z]{0,3})?\b/g],
  ['amd', /\bamd\b/g],
  ['intel', /\b(?:intel\s+)?(?:core\s+)?(?:ultra\s*[3579]|i[3579])(?:[\s-]+\d{3,5}[a-z]{0,2})?\b/g],
  ['intel', /\b(?:intel\s+)?core\s+ultra\b/g],
  ['intel', /\bintel(?:\s+core)?\b/g],
];

/** A processor named in a model string: its vendor, the words, and the string without them. */
export interface ProcessorHint {
  vendor: ProcessorVendor;
  text: string;
  rest: string;
}

/**
 * The processor a model string names ("ThinkPad T14 Gen 3 Ryzen 5 PRO 6650U", "… i5-1245U",
 * "… Core Ultra 7 155U", "… AMD"), or undefined when it names none or both vendors.
 */
export function processorHint(model: string): ProcessorHint | undefined {
  let rest = fold(model);
  const found = new Map<ProcessorVendor, string[]>();
  for (const [vendor, re] of PROCESSOR_PATTERNS) {
    rest = rest.replace(re, (m) => {
      found.set(vendor, [...(found.get(vendor) ?? []), m.trim()]);
      return ' ';
    });
  }
  const [only, ...more] = [...found];
  if (!only || more.length) return undefined;
  const [vendor, texts] = only;
  return { vendor, text: texts.join(' '), rest: rest.replace(/[\s-]+$/, '').replace(/\s+/g, ' ').trim() };
}

/**
 * The processor vendor a catalogue device's name or aliases state ("… T14 Gen 3 AMD", "… T14s Gen
 * 6 Snapdragon"), if exactly one.
 */
export function vendorOf(e: CatalogueEntry): ProcessorVendor | 'qualcomm' | undefined {
  const ws = new Set([e.name, ...e.aliases].flatMap((t) => words(t)));
  const vendors = [
    ...(ws.has('amd') || ws.has('ryzen') ? ['amd' as const] : []),
    ...(ws.has('intel') ? ['intel' as const] : []),
    ...(ws.has('snapdragon') || ws.has('qualcomm') ? ['qualcomm' as const] : []),
  ];
  return vendors.length === 1 ? vendors[0] : undefined;
}

/**
 * What a model string resolves to in the catalogue: one device (a confident matchModel), or the
 * variants of one model it names without telling them apart, with the variant a processor named
 * in the string picks (`chosen`, by `processor`) when it picks exactly one. A processor in the
 * string never makes a device of the other vendor match.
 */
export type ModelResolution = (
  | { kind: 'device'; entry: CatalogueEntry; score: number }
  | { kind: 'variants'; candidates: CatalogueEntry[]; chosen?: CatalogueEntry; processor?: string }
  | { kind: 'family'; candidates: CatalogueEntry[]; family: string }
) & {
  /** The name as it was matched when only its normalised form matched (typedNameReadings). */
  read_as?: string;
};

/**
 * resolveModel on the string as written; when that resolves to nothing, on the readings of it as
 * a name printed on a manufacturer's sheet (typedNameReadings: "OptiPlex 9990 Micro Form Factor"
 * → "OptiPlex 9990 Micro", "P99 G4 23.8-inch Monitor" → "P99 G4 Monitor"), kept only when the
 * device agrees with what the reading dropped (a typed screen size, "Monitor"/"Display").
 */
export function resolveModel(index: CatalogueIndex, model: string, brand?: string): ModelResolution | undefined {
  const asWritten = resolveAsWritten(index, model, brand);
  if (asWritten) return asWritten;
  const read = resolveReadings(index, model, brand);
  if (read) return read;
  const family = resolveFamily(index, model, brand);
  if (family) return family;
  // A sheet covering several names ("ThinkVision P99h-20/T99h-20", "T9999tA(ThinkVision T9999t)",
  // "Galaxy A99 (SM-A999F)"): the device when the names that resolve all resolve to the same one.
  const code = /\(([a-z]{1,4}-[a-z0-9]{3,}|[a-z0-9]*\d[a-z0-9]*[a-z][a-z0-9]*)\)/i.exec(model)?.[1];
  const byCode = code && code.length >= 5 ? index.findByPartNumber(code, brand) : undefined;
  // ... and the rest of the name agrees with it ("Back-UPS 851VA (BE850G2)" is not the 850VA)
  if (byCode && numbersAgree(model.replace(`(${code})`, ' '), byCode)) return { kind: 'device', entry: byCode, score: 1, read_as: code };
  const parts = alternativeNames(model);
  if (parts.length < 2) return undefined;
  // The string must name each device entirely ("ADSL2+ Modem" of "Vigor168 VDSL2/ADSL2+ Modem" is not the Vigor167).
  const found = parts
    .map((p) => ({ p, r: resolveAsWritten(index, p, brand) ?? resolveReadings(index, p, brand) }))
    .filter((x) => x.r && agreesWithReading(x.r, { model: `${model} ${x.r.read_as ?? x.p}` }));
  const devices = new Set(found.map(({ r }) => (r!.kind === 'device' ? r!.entry : undefined)));
  if (found.length === 0 || devices.size !== 1 || devices.has(undefined)) return undefined;
  return { ...found[0]!.r!, read_as: found[0]!.r!.read_as ?? found[0]!.p };
}

function resolveReadings(index: CatalogueIndex, model: string, brand?: string): ModelResolution | undefined {
  for (const reading of typedNameReadings(model, brand)) {
    const r = resolveAsWritten(index, reading.model, reading.brand);
    if (r && agreesWithReading(r, reading)) return { ...r, read_as: reading.model };
  }
  return undefined;
}

/** The family a name or one of its readings names when no device or variants do (familyOf). */
function resolveFamily(index: CatalogueIndex, model: string, brand?: string): ModelResolution | undefined {
  const asWritten = familyOf(index, model, brand);
  if (asWritten) return { kind: 'family', ...asWritten };
  for (const reading of typedNameReadings(model, brand)) {
    const f = familyOf(index, reading.model, reading.brand);
    const r: ModelResolution | undefined = f && { kind: 'family', ...f, read_as: reading.model };
    if (r && agreesWithReading(r, reading)) return r;
  }
  return undefined;
}

/**
 * The names a sheet gives one product under: "P99h-20/T99h-20", "IdeaPad 9-99/Lenovo V99",
 * "YOGA 999. Lenovo YOGA 999 Glass", "T9999tA(ThinkVision T9999t)". One name (none) when the string
 * has no such separator; a part number's "/A" (MLY33LL/A) is no separator.
 */
export function alternativeNames(model: string): string[] {
  const paren = /^(.+?)\s*\(([a-z]{4,}\s+[^()]+)\)\s*$/i.exec(model);
  const parts = paren ? [paren[1]!, paren[2]!] : model.split(/\s*\/\s*|\.\s+|\.(?=[a-z]{4,}\s)/i);
  const clean = parts.map((p) => p.trim()).filter((p) => compact(p).length >= 3);
  return clean.length >= 2 && clean.length === parts.length ? clean : [];
}

function resolveAsWritten(index: CatalogueIndex, model: string, brand?: string): ModelResolution | undefined {
  const d = modelMatchDetail(index, model, brand);
  if (d.hit && d.margin >= MIN_MARGIN) return { kind: 'device', entry: d.hit.entry, score: d.hit.score };
  const hint = processorHint(model);
  if (d.variants) return withProcessor(d.variants, hint);
  if (!hint || !hint.rest || compact(hint.rest) === compact(model)) return undefined;
  // Without the processor words: "ThinkPad T14 Gen 3 i5-1245U" is the T14 Gen 3 (Intel).
  const bare = modelMatchDetail(index, hint.rest, brand);
  if (bare.variants) return withProcessor(bare.variants, hint);
  if (!bare.hit || bare.margin < MIN_MARGIN) return undefined;
  const vendor = vendorOf(bare.hit.entry);
  return vendor && vendor !== hint.vendor ? undefined : { kind: 'device', entry: bare.hit.entry, score: bare.hit.score };
}

function withProcessor(candidates: CatalogueEntry[], hint: ProcessorHint | undefined): ModelResolution {
  const picked = hint ? candidates.filter((e) => vendorOf(e) === hint.vendor) : [];
  return picked.length === 1 ? { kind: 'variants', candidates, chosen: picked[0], processor: hint!.text } : { kind: 'variants', candidates };
}

// ---------------------------------------------------------------------------------------------
// Families: the generations of one model, when the name gives none (issue 15.5)

/**
 * A generation at the end of a name (folded words): "gen 4", "g9", "gen10", "2nd generation", and
 * Lenovo's platform code after it, Intel or AMD ("ThinkBook 14 G2 ITL", "G6 ABP").
 */
const GENERATION_TAIL = /\s(?:(?:gen|generation)\s?\d{1,2}|g\d{1,2}|\d{1,2}(?:st|nd|rd|th)\s(?:gen|generation))(?:\s[ia][a-z]{2})?$/;

const familyKeys = new WeakMap<CatalogueEntry, string | null>();

/**
 * The family a catalogue device is a generation of: its name without brand, years, processor
 * words and the generation at its end ("Lenovo ThinkPad E14 Gen 4 AMD" → "thinkpad e14", "HP
 * EliteBook 840 G9" → "elitebook 840"); undefined for a name that ends in no generation.
 */
export function familyKey(e: CatalogueEntry): string | undefined {
  let key = familyKeys.get(e);
  if (key === undefined) {
    const brandWords = new Set(words(e.brand));
    const name = ` ${words(analyse(e.name)).filter((w) => !brandWords.has(w) && !isYear(w) && !PROCESSOR_WORDS.has(w)).join(' ')}`;
    const tail = GENERATION_TAIL.exec(name);
    key = tail ? name.slice(0, tail.index).trim() || null : null;
    familyKeys.set(e, key);
  }
  return key ?? undefined;
}

/** A family has at least this many devices in the catalogue: one generation alone does not stand for the others. */
export const MIN_FAMILY_SIZE = 2;

/**
 * The generations of one model a name names without a generation ("ThinkPad E14" → E14 Gen 2 to
 * Gen 6, Intel and AMD; "EliteBook 840" → 840 G5 to G11): every device of the brand whose
 * familyKey is the name (brand and noise words aside), or the name behind a line name it left
 * out ("E14" of "ThinkPad E14"); MIN_FAMILY_SIZE or more, all of one category. The name must
 * carry a model number ("ThinkPad" is a line, not a family) and no processor (a processor names
 * variants). `family` is the name the family's devices share ("Lenovo ThinkPad E14").
 */
export function familyOf(index: CatalogueIndex, model: string, brand?: string): { candidates: CatalogueEntry[]; family: string } | undefined {
  const brandWords = new Set(brand ? words(brand) : []);
  const ws = words(analyse(model)).filter((w) => !brandWords.has(w) && !NOISE_WORDS.has(w));
  if (!ws.some((w) => hasDigit(w) && !CONFIG_WORD.test(w) && !isYear(w)) || ws.some((w) => PROCESSOR_WORDS.has(w) || CONFIG_WORD.test(w))) return undefined;
  const key = ws.map(wordForm).join(' ');
  const members = index.entries.filter((e) => {
    const k = familyKey(e);
    // A line name may be left out before the model: "e14" of "thinkpad e14".
    const sameFamily = !!k && (k === key || (k.endsWith(` ${key}`) && !hasDigit(k.slice(0, -key.length))));
    // The key first: the brand check folds both names, and most devices fail on the key.
    return sameFamily && (!brand || brandMatches(e.brand, brand));
  });
  if (members.length < MIN_FAMILY_SIZE || new Set(members.map((e) => e.category)).size !== 1 || new Set(members.map((e) => compact(e.brand))).size !== 1) return undefined;
  const keys = new Set(members.map((e) => familyKey(e)));
  if (keys.size !== 1) return undefined;
  const familyWords = new Set([...words([...keys][0]!), ...words(members[0]!.brand)]);
  // the family's name in the catalogue's spelling: the words of the first device's name in the family key
  const family = members[0]!.name.split(/\s+/).filter((w) => words(analyse(w)).every((x) => familyWords.has(x))).join(' ');
  return { candidates: members, family };
}

// ---------------------------------------------------------------------------------------------
// Names as printed on manufacturers' sheets and typed by users (issue 15.5)

/** A normalised reading of a typed name, and what the normalisation dropped that the device must agree with. */
export interface TypedNameReading {
  model: string;
  brand?: string;
  /** A screen size the name stated ("13-inch", '15.6"'); a device stating its own must agree. */
  screen_inch?: number;
  /** The name called the device a monitor or display: the device must be one. */
  display?: boolean;
  /** The reading dropped "All-in-One"/"AIO" (the device must be an all-in-one) or "Tiny" (a mini PC or thin client). */
  form?: 'all_in_one' | 'mini';
}

/** Screen size written before or inside a name: 13-inch, 13.3", 15.6 Inch, 17”, 21.5-inch, 14in. */
export const SCREEN_SIZE = /(?<![\w.])(\d{1,2}(?:[.,]\d{1,2})?)\s*(?:-\s*)?(?:inch(?:es)?\b|in\b(?!-)|"|”|″|'')/i;

/** Words and phrases on sheets that describe, not name, a device (applied to folded text, in order). */
const DESCRIPTIVE: [RegExp, string][] = [
  [/\((?:with|without)\s+(?:pro\s+)?stand\)|\bwith(?:out)?\s+(?:pro\s+)?stand\b/g, ' '],
  [/\b(?:notebook|laptop|desktop|convertible|mobile\s+workstation|workstation|mini)\s+pc\b/g, ' '],
  [/\bmobile\s+workstation\b/g, ' '],
  [/\benergy\s+star\b/g, ' '],
  [/\b(?:metal|alcantara\S*)\s+palm\s+rest\b/g, ' '],
  // panel resolution, connectivity and features of monitors
  [/\b(?:fhd|qhd|wqhd|uhd|wuxga|dreamcolor|curved|conferencing|webcam)\b/g, ' '],
  [/\busb[\s-]?c\b/g, ' '],
  // Apple's configuration descriptions: "(2.0GHz quad-core CPU)", "(M1 Pro 10-core CPU and 16-core GPU)"
  [/\b\d+(?:\.\d+)?\s*ghz\b/g, ' '],
  [/\b(?:dual|quad|\d+)[\s-]core\b/g, ' '],
  [/\b(?:cpu|gpu)\b/g, ' '],
  // footnote marks glued to a word: "ProLiant DL999 Gen10 server4", "Compute Module4"
  [/\b(?:compute\s+)?(?:server|system|module)\d\b/g, ' '],
  // form factors: "Micro Form Factor", "MFF" → micro (Dell names the Micro "OptiPlex 3070 Micro")
  [/\bmicro\s+form\s+factor\b|\bmff\b/g, 'micro'],
  [/\bmini[\s-]?tower\b|\bmt\b/g, 'tower'],
  [/\btower\s+form\s+factor\b/g, 'tower'],
];

/** "2nd Gen", "3rd generation" → the number. */
const ORDINAL_GEN = /\b(\d{1,2})(?:st|nd|rd|th)\s+gen(?:eration)?\b/g;
/** "Gen 3", "Gen3", "G3" (HP) → the number. */
const GEN_N = /\bgen(?:eration)?\s*(\d{1,2})\b/g;

/**
 * Readings of a name as printed on a sheet or typed by a user, to try when the string as written
 * resolves to nothing: marketing suffixes and descriptive words removed ("Notebook PC", "Monitor
 * (without stand)", "FHD", "USB-C"), form factors in the catalogue's words ("Micro Form Factor" →
 * Micro, "Mini Tower"/"MT" → Tower; "Small Form Factor" → SFF is the analyser's), a screen size
 * removed ("13-inch MacBook Air", "P99 G4 23.8-inch Monitor") or written as the integer some
 * names carry ("ZBook Fury 15.6 Inch G8" → "ZBook Fury 15 G8"), generations written the other
 * way ("2nd Gen" ↔ "Gen 2", "(2nd generation)"), and HP server names under HPE. Each differs from
 * the string as written; none adds a model number the string lacks.
 */
export function typedNameReadings(model: string, brand?: string): TypedNameReading[] {
  let t = fold(model).replace(/[\u2013\u2014]/g, '-');
  const size = SCREEN_SIZE.exec(t);
  const screen_inch = size ? Number(size[1]!.replace(',', '.')) : undefined;
  // "AW9999H Monitor", "Z99n G3 WUXGA Display"; not "with Retina display" or "15-inch display" (a laptop's screen)
  const miniPc = /\bmini\s+pc\b/.test(t);
  const display = /\bmonitor\b/.test(t) || (/\bdisplay\s*$/.test(t) && !/(?:retina|inch|in|"|\u201d)\s+display\s*$/.test(t));
  for (const [re, to] of DESCRIPTIVE) t = t.replace(re, to);
  // Lenovo sells the M820z "AIO" and the M625q "Tiny" under names without those words.
  let form: TypedNameReading['form'];
  if (/\b(?:all[\s-]?in[\s-]?one|aio)\b/.test(t) && !/thin\s+client/.test(t)) {
    t = t.replace(/\b(?:all[\s-]?in[\s-]?one|aio)\b/g, ' ');
    form = 'all_in_one';
  } else if (/\btiny\b(?!-)/.test(t)) {
    t = t.replace(/\btiny\b(?!-)/g, ' ');
    form = 'mini';
  } else if (miniPc) form = 'mini';
  // a part number in parentheses ("Galaxy A99 (SM-A999F)") is looked up as such; the name is read without it
  t = t.replace(/\((?:[a-z]{1,4}-[a-z0-9]{3,}|[a-z0-9]*\d[a-z0-9]*[a-z][a-z0-9]*)\)/g, ' ');
  const tidy = (s: string) => s.replace(/\(\s*\)/g, ' ').replace(/\s+-\s+/g, ' ').replace(/\s+/g, ' ').trim();
  const bases: string[] = [];
  if (size) {
    bases.push(tidy(t.replace(SCREEN_SIZE, ' ')));
    // as some names carry it: "Surface Laptop 3 13.5\"" (13.5), "ZBook Fury 15 G8" (15)
    bases.push(tidy(t.replace(SCREEN_SIZE, ` ${screen_inch} `)));
    bases.push(tidy(t.replace(SCREEN_SIZE, ` ${Math.floor(screen_inch!)} `)));
  } else bases.push(tidy(t));
  const texts: string[] = [];
  for (const b of bases) {
    texts.push(b);
    if (ORDINAL_GEN.test(b)) texts.push(b.replace(ORDINAL_GEN, 'gen $1'));
    ORDINAL_GEN.lastIndex = 0;
    if (GEN_N.test(b)) {
      const n = (d: string) => `${d}${d === '1' ? 'st' : d === '2' ? 'nd' : d === '3' ? 'rd' : 'th'}`;
      texts.push(b.replace(GEN_N, (_, d: string) => `${n(d)} generation`));
    }
    GEN_N.lastIndex = 0;
  }
  const brands = [brand, ...(brand && canonicalBrand(brand) === 'hp' && /\b(?:proliant|synergy|apollo|edgeline)\b/.test(t) ? ['HPE'] : [])];
  const seen = new Set([`${brand ?? ''}|${compact(model)}`]);
  const out: TypedNameReading[] = [];
  for (const b of brands) {
    for (const m of texts) {
      const key = `${b ?? ''}|${compact(m)}`;
      if (!compact(m) || seen.has(key)) continue;
      seen.add(key);
      out.push({ model: m, ...(b ? { brand: b } : {}), ...(screen_inch !== undefined ? { screen_inch } : {}), ...(display ? { display } : {}), ...(form ? { form } : {}) });
    }
  }
  return out;
}

/** The devices of a resolution agree with what a reading dropped: the typed screen size (within 0.6"), the display kind. */
function agreesWithReading(r: ModelResolution, reading: TypedNameReading): boolean {
  const devices = r.kind === 'device' ? [r.entry] : r.candidates;
  const read = new Set(terms(reading.model));
  const joined = compact(analyse(reading.model));
  return devices.every((e) => {
    // A family's devices have generations the reading lacks by definition: what it dropped is checked.
    if (r.kind === 'family') return agreesWithDropped(e, reading);
    // Every word of the device's name from its first model number on is in the reading (brand,
    // noise, years, configuration and processor words aside): "ProLiant DL385 Gen10" is not the
    // DL385 Gen10 Plus. A line name before the number may be left out ("U2422H" is the UltraSharp U2422H).
    const brandWords = new Set(words(e.brand));
    const nameWords = words(analyse(e.name));
    const firstNumber = nameWords.findIndex((w) => hasDigit(w) && !CONFIG_WORD.test(w) && !isYear(w));
    const covered = nameWords.every((w, i) => {
      if ((i < firstNumber && !hasDigit(w)) || brandWords.has(w) || NOISE_WORDS.has(w) || isYear(w) || CONFIG_WORD.test(w) || PROCESSOR_WORDS.has(w) || read.has(wordForm(w))) return true;
      const parts = letterDigitParts(w);
      return (parts.length > 0 && parts.every((p) => read.has(wordForm(p)))) || (hasDigit(w) && joined.includes(w));
    });
    return covered && agreesWithDropped(e, reading);
  });
}

/** The device agrees with what the reading dropped: the display kind, the form, the screen size (within 0.6"). */
function agreesWithDropped(e: CatalogueEntry, reading: TypedNameReading): boolean {
  if (reading.display && !/monitor|display/.test(e.category)) return false;
  if (reading.form === 'all_in_one' && e.category !== 'all_in_one') return false;
  if (reading.form === 'mini' && e.category !== 'mini_pc' && e.category !== 'thin_client') return false;
  const screen = e.specs.screen_size_inch;
  return reading.screen_inch === undefined || screen === undefined || screen <= 0 || Math.abs(screen - reading.screen_inch) <= 0.6;
}
