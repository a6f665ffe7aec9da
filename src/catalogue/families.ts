/**
 * Families: the generations of one model, when a name gives none ("ThinkPad E14", "EliteBook 840").
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import { analyse, compact, CONFIG_WORD, hasDigit, isYear, NOISE_WORDS, PROCESSOR_WORDS, wordForm, words } from './text.ts';
import { brandMatches } from './brands.ts';
import type { CatalogueIndex } from './catalogue-index.ts';

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
    const name = ` ${words(analyse(e.name))
      .filter((w) => !brandWords.has(w) && !isYear(w) && !PROCESSOR_WORDS.has(w))
      .join(' ')}`;
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
export function familyOf(
  index: CatalogueIndex,
  model: string,
  brand?: string,
): { candidates: CatalogueEntry[]; family: string } | undefined {
  const brandWords = new Set(brand ? words(brand) : []);
  const ws = words(analyse(model)).filter((w) => !brandWords.has(w) && !NOISE_WORDS.has(w));
  if (!ws.some((w) => hasDigit(w) && !CONFIG_WORD.test(w) && !isYear(w)) || ws.some((w) => PROCESSOR_WORDS.has(w) || CONFIG_WORD.test(w)))
    return undefined;
  const key = ws.map(wordForm).join(' ');
  const members = index.entries.filter((e) => {
    const k = familyKey(e);
    // A line name may be left out before the model: "e14" of "thinkpad e14".
    const sameFamily = !!k && (k === key || (k.endsWith(` ${key}`) && !hasDigit(k.slice(0, -key.length))));
    // The key first: the brand check folds both names, and most devices fail on the key.
    return sameFamily && (!brand || brandMatches(e.brand, brand));
  });
  if (
    members.length < MIN_FAMILY_SIZE ||
    new Set(members.map((e) => e.category)).size !== 1 ||
    new Set(members.map((e) => compact(e.brand))).size !== 1
  )
    return undefined;
  const keys = new Set(members.map((e) => familyKey(e)));
  if (keys.size !== 1) return undefined;
  const familyWords = new Set([...words([...keys][0]!), ...words(members[0]!.brand)]);
  // the family's name in the catalogue's spelling: the words of the first device's name in the family key
  const family = members[0]!.name
    .split(/\s+/)
    .filter((w) => words(analyse(w)).every((x) => familyWords.has(x)))
    .join(' ');
  return { candidates: members, family };
}
