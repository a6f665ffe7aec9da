/**
 * Model numbers: the digit-bearing words that identify a model, the measures a name states ("1TB",
 * "44mm"), and whether a catalogue device agrees with the numbers of a model string. A wrong digit
 * is a different model, so these rules are exact where the search is fuzzy.
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import { analyse, compact, CONFIG_WORD, hasDigit, isYear, terms, words } from './text.ts';

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

interface EntryNumbers {
  /** Words of name and aliases, their runs of 2-3 consecutive words joined, and the compact codes. */
  words: Set<string>;
  /** Model numbers of the name (digit-bearing words, brand and configuration words left out). */
  nameNumbers: string[];
  measures: Map<string, number[]>;
}

const numbersCache = new WeakMap<CatalogueEntry, EntryNumbers>();

export function entryNumbers(e: CatalogueEntry): EntryNumbers {
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
