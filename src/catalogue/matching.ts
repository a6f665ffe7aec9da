/**
 * Confident model matching: rules on top of the search ranking that decide when a model string
 * names one catalogue device (every model number of the string in the device, every word matched,
 * no word of the device's name that makes it another one, a margin over the runner-up), or the
 * variants of one model. The thresholds come from bench/search-compare.ts --match.
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import {
  analyse,
  compact,
  CONFIG_WORD,
  hasDigit,
  isNumber,
  isYear,
  letterDigitParts,
  NOISE_WORDS,
  PROCESSOR_WORDS,
  terms,
  wordForm,
  words,
} from './text.ts';
import { brandMatches, isBrandSynonym } from './brands.ts';
import { entryNumbers, modelNumbers, numbersAgree, numbersExplained } from './model-numbers.ts';
import type { CatalogueIndex, SearchHit } from './catalogue-index.ts';

/**
 * Every word of the entry's name (brand, years and noise words aside) was matched by the query,
 * as the search saw it (typos and prefixes included): "iPhone 13 Pro" explains the 13 Pro, not
 * the 13 Pro Max.
 */
function nameExplained(e: CatalogueEntry, docTerms: Set<string>, alsoIgnore?: ReadonlySet<string>): boolean {
  const brandWords = new Set(words(e.brand));
  return words(analyse(e.name)).every((w) => {
    if (brandWords.has(w) || NOISE_WORDS.has(w) || isYear(w) || CONFIG_WORD.test(w) || docTerms.has(wordForm(w)) || alsoIgnore?.has(w))
      return true;
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
  const isBrand = (w: string) => brandWords.has(w) || isBrandSynonym(w) || (brand !== undefined && brandMatches(brand, w));
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
 * (a model string never resolves to a wrong device):
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
  if (
    [e.mpn, ...e.aliases].some(
      (code) => /[0-9]/.test(code) && !/\s/.test(code.trim()) && compact(code).length >= 6 && joined.includes(compact(code)),
    )
  )
    return [];
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

/** A device's name without its processor words: the same for the variants of one model. */
const withoutProcessor = (e: CatalogueEntry): string =>
  words(analyse(e.name))
    .filter((w) => !PROCESSOR_WORDS.has(w))
    .join(' ');

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
    return {
      kind: 'none',
      margin: 0,
      reason: `ambiguous: ${exact.length} devices have this name`,
      ...(areVariants(exact) ? { variants: exact } : {}),
    };
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
  const agreeing = hits.filter(
    (h) => numbersAgree(m, h.entry) && needed.every((w) => wordMatched(w, h.docTerms)) && distinguishingWords(m, h.entry).length === 0,
  );
  const numbersOk = agreeing.filter((h) => numbersExplained(m, h.entry));
  const explained = numbersOk.filter((h) => nameExplained(h.entry, h.docTerms));
  // Without a model number only a device named by the query entirely will do ("Switch Lite"),
  // never a line ("MacBook Pro", "ThinkPad").
  const pool = explained.length ? explained : numbers.length === 0 ? [] : numbersOk.length ? numbersOk : agreeing;
  const first = pool[0];
  if (!first)
    return { kind: 'none', margin: 0, reason: numbers.length ? 'no device with these model numbers' : 'no device named by these words' };
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
    const group = [tied, explainedTied].find(
      (hs) => hs.length >= 2 && hs.every((h) => withoutProcessor(h.entry) === withoutProcessor(hs[0]!.entry)),
    );
    const variants = group?.map((h) => h.entry);
    if (variants && areVariants(variants)) return { hit: { entry: first.entry, score: margin }, kind: 'fuzzy', margin, variants };
  }
  return { hit: { entry: first.entry, score: margin }, kind: 'fuzzy', margin };
}

/**
 * The device a model string names, or undefined unless the match is confident. `score` is the
 * confidence in (0, 1]: 1 for an exact name/alias/part-number match, otherwise the margin over
 * the runner-up, 1 - second/first. See docs/search.md for how the rules were measured.
 */
export function matchModel(index: CatalogueIndex, model: string, brand?: string): SearchHit | undefined {
  const d = modelMatchDetail(index, model, brand);
  return d.hit && d.margin >= MIN_MARGIN ? d.hit : undefined;
}
