/**
 * Names as printed on manufacturers' sheets and typed by users: readings of a name without its
 * marketing and descriptive words, and what a reading dropped that a device must agree with.
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import { successorBrands } from './brands.ts';
import { compact, fold } from './text.ts';

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
  const tidy = (s: string) =>
    s
      .replace(/\(\s*\)/g, ' ')
      .replace(/\s+-\s+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
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
  const brands = [brand, ...(brand ? successorBrands(brand, t) : [])];
  const seen = new Set([`${brand ?? ''}|${compact(model)}`]);
  const out: TypedNameReading[] = [];
  for (const b of brands) {
    for (const m of texts) {
      const key = `${b ?? ''}|${compact(m)}`;
      if (!compact(m) || seen.has(key)) continue;
      seen.add(key);
      out.push({
        model: m,
        ...(b ? { brand: b } : {}),
        ...(screen_inch !== undefined ? { screen_inch } : {}),
        ...(display ? { display } : {}),
        ...(form ? { form } : {}),
      });
    }
  }
  return out;
}

/** The device agrees with what the reading dropped: the display kind, the form, the screen size (within 0.6"). */
export function agreesWithDropped(e: CatalogueEntry, reading: TypedNameReading): boolean {
  if (reading.display && !/monitor|display/.test(e.category)) return false;
  if (reading.form === 'all_in_one' && e.category !== 'all_in_one') return false;
  if (reading.form === 'mini' && e.category !== 'mini_pc' && e.category !== 'thin_client') return false;
  const screen = e.specs.screen_size_inch;
  return reading.screen_inch === undefined || screen === undefined || screen <= 0 || Math.abs(screen - reading.screen_inch) <= 0.6;
}
