/**
 * Text analysis of device names and queries: folding, words, the letter/digit parts of mixed words,
 * phrase and word synonyms, and the small vocabularies (configuration, noise and processor words)
 * that every other part of identification reads names with. Shared with bench/search-compare.ts so
 * every search candidate sees the same input.
 */

/** NFKD, combining marks removed, lower case: "Portégé" → "portege". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss');
}

/** Folded and without separators; `+` is kept because it names a model (Galaxy S23 vs S23+). */
export function compact(text: string): string {
  return fold(text).replace(/[^a-z0-9+]+/g, '');
}

/**
 * Words with letters of a script other than Latin ("מחשב", "ノート"): the analysis drops them, so
 * nothing can check that a device matches them.
 */
export function unreadableWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => /(?=\p{L})\P{Script=Latin}/u.test(w));
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
export const CONFIG_WORD = /^(?:\d+(?:gb|tb|mb|ghz|mhz|hz|w|wh|mah|in|inch|mm|k)|i[3579]|r[3579]|ryzen\d*|\d+(?:ssd|hdd|nvme|emmc))$/;

/** Phrases written several ways, folded to the short form on both sides of the index. */
const PHRASES: [RegExp, string][] = [
  [/\bsmall form factor\b/g, 'sff'],
  [/\ball[ -]?in[ -]?one\b/g, 'aio'],
];

/** Words written several ways → one form, applied to words and to letter/digit parts ("Gen11"). */
const WORD_FORMS: ReadonlyMap<string, string> = new Map([['gen', 'generation']]);
export const wordForm = (w: string): string => WORD_FORMS.get(w) ?? w;

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

export const hasDigit = (s: string): boolean => /[0-9]/.test(s);

/** A word that is a number, with the `+` of a model kept ("424+" of DS424+). */
export const isNumber = (term: string): boolean => /^[0-9]+\+*$/.test(term);
export const numberOf = (term: string): number => Number.parseInt(term, 10);

/** A release year written in a name ("MacBook Air 13-inch (M2, 2022)"). */
export const isYear = (w: string): boolean => /^(19[89]\d|20[0-3]\d)$/.test(w);

/** Words a model string may carry that name no model ("Latitude 5440 laptop", "Surface Pro 9 for Business"). */
export const NOISE_WORDS = new Set(
  (
    'laptop notebook computer desktop monitor display phone smartphone tablet printer series business edition ' +
    'model with inch for the and pc new used refurbished ssd hdd nvme emmc ram memory storage'
  ).split(' '),
);

/** Words of a catalogue name that name the processor of a variant ("ThinkPad T14 Gen 3 AMD"). */
export const PROCESSOR_WORDS: ReadonlySet<string> = new Set(['intel', 'amd', 'ryzen', 'snapdragon', 'qualcomm']);
