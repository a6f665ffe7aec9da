/**
 * What a model name says about a device the catalogue does not know (names as users type them): the kind of device its words name ("AW9999H Monitor", "OptiPlex 3080 Tower",
 * "250 G99 Notebook PC"), or else the kind of the catalogue's devices of its product line, name
 * pattern or brand, a screen size written in it ("15.6-inch") or given by its model number as by the
 * catalogue's devices numbered alike ("P2799H": 27), and the release year of the catalogue's devices
 * numbered like it ("Latitude 5411", "EliteBook 845 G6"). Used by the lookup
 * chain only when no catalogue device matched, and never over a category or screen size the caller gave.
 * The memory and storage a name states ("iPhone 13 Pro 1TB": readCapacities) apply to a catalogue
 * device too: they name its configuration.
 */
import { getCategory, type StorageType } from '../footprint/engine/index.ts';
import { loadCatalogue, type CatalogueEntry } from './catalogue-data.ts';
import { analyse, canonicalBrand, CONFIG_WORD, fold, SCREEN_SIZE, words } from './search.ts';

/**
 * Words that name a kind of device, most specific first ("Precision 3660 Tower Workstation" is a
 * workstation, "EliteDesk 800 G6 Desktop Mini" a mini PC). A word shared by several kinds
 * (display, switch, dock) is left out: a wrong category is worse than the default.
 */
const CATEGORY_WORDS: readonly [RegExp, string][] = [
  [/\bthin\s+client\b/, 'thin_client'],
  [/\bmobile\s+workstation\b/, 'mobile_workstation'],
  [/\ball[\s-]?in[\s-]?one\s+printer\b|\bmultifunction\s+printer\b|\bmfp\b/, 'multifunction_printer'],
  [/\ball[\s-]?in[\s-]?one\b|\baio\b/, 'all_in_one'],
  [/\bchromebook\b/, 'chromebook'],
  [/\b2[\s-]?in[\s-]?1\b|\bconvertible\b/, 'convertible'],
  [/\b(?:notebook|laptop|ultrabook)\b/, 'laptop'],
  [/\bworkstation\b/, 'workstation'],
  [/\btower\s+server\b/, 'tower_server'],
  [/\bblade\s+server\b/, 'blade_server'],
  [/\bserver\b/, 'server'],
  [/\bdesktop\s+mini\b|\bmini\s+pc\b|\btiny\b|\bmicro\b(?!\s*(?:usb|sd|hdmi))/, 'mini_pc'],
  [/\b(?:tower|sff|small\s+form\s+factor|desktop)\b/, 'desktop'],
  // "L2251x Wide", "LA2205wg Widescreen": monitors; HP's "Wide Format" printers are not.
  [/\bmonitor\b|\bwide(?:screen)?\b(?!\s+format)/, 'monitor'],
  [/\bsmartphone\b/, 'smartphone'],
  [/\btablet\b/, 'tablet'],
  [/\bprinter\b/, 'printer'],
  [/\brouter\b/, 'router'],
];

export interface NameHints {
  /**
   * The category the name's words name, and the word that named it; or, with `basis` saying which,
   * the category of the catalogue's devices of its product line, of its brand's names of the same
   * pattern, or of its brand (lineCategories).
   */
  category?: { id: string; word: string; basis?: string };
  /** A screen size written in the name, inches. */
  screen_size_inch?: number;
  /** A screen size its model number gives, by the catalogue's devices numbered alike (screenReadings), and which they are. */
  screen_from_number?: { inch: number; basis: string };
  /** The release year of the catalogue's devices numbered like it (releaseYears), and which they are. */
  release_year?: { year: number; basis: string };
}

/**
 * The kind and screen size a name states; with `lines` (lineCategories of the catalogue) and the
 * brand, also the category of the product line it names when its words name no kind ("Apple
 * iMac …" is an all-in-one, "Lenovo ThinkVision …" a monitor); with `years` (releaseYears of the
 * catalogue) and the brand, the release year of the catalogue's devices numbered like it; with
 * `screens` (screenReadings of the catalogue) and no screen size written in it, the screen size its
 * model number gives.
 */
export function readNameHints(
  name: string,
  brand?: string,
  lines?: LineCategories,
  years?: ReleaseYears,
  screens?: ScreenReadings,
): NameHints {
  const text = fold(name).replace(/[\u2013\u2014]/g, '-');
  const hints: NameHints = {};
  for (const [pattern, id] of CATEGORY_WORDS) {
    const found = pattern.exec(text);
    if (found) {
      hints.category = { id, word: found[0] };
      break;
    }
  }
  const size = SCREEN_SIZE.exec(text);
  if (size) hints.screen_size_inch = Number(size[1]!.replace(',', '.'));
  if (brand && lines && !hints.category) {
    const line = lineWord(text.replace(SCREEN_SIZE, ' '), brand);
    const key = canonicalBrand(brand);
    const catalogue = `the built-in catalogue's ${brand.trim()}`;
    const ofKind = (kind: LineKind) =>
      kind.forms ? `are desk computers (${kind.forms.join(', ')}): estimated as a desktop` : 'are of this kind';
    if (line) {
      // The line's models of the same letters where they are of another kind than the line: ThinkPad "P"
      // models are mobile workstations, the line's others notebooks.
      const series = seriesLetters(text, brand, line);
      const ofLine = lines.get(`${key}|${line}`);
      const ofSeries = series ? lines.get(`${key}|${line}|${series}`) : undefined;
      const bySeries = ofSeries !== undefined && ofSeries.id !== ofLine?.id;
      const kind = bySeries ? ofSeries : ofLine;
      const named = bySeries ? `${line} ${series}…` : line;
      if (kind) hints.category = { id: kind.id, word: named, basis: `${catalogue} ${named} devices ${ofKind(kind)}` };
    } else {
      // A name without a line word is of the kind of the brand's names shaped like it (HP's "P24 G4",
      // "E27q G5": monitors), or of its brand's (Lexmark: printers).
      const shape = modelShape(text, brand);
      const byShape = shape !== undefined ? lines.get(`${key}|#${shape}`) : undefined;
      const byBrand = lines.get(`${key}|`);
      if (byShape)
        hints.category = {
          id: byShape.id,
          word: shape!,
          basis: `${catalogue} devices named in the same pattern (${shape}) ${ofKind(byShape)}`,
        };
      else if (byBrand) hints.category = { id: byBrand.id, word: fold(brand), basis: `${catalogue} devices ${ofKind(byBrand)}` };
    }
  }
  if (brand && years) {
    const dated = releaseYearOf(text, brand, years);
    if (dated) hints.release_year = dated;
  }
  if (brand && screens && hints.screen_size_inch === undefined) {
    const read = screenSizeOf(text, brand, screens);
    if (read) hints.screen_from_number = read;
  }
  return hints;
}

/** brand|line word, brand|line word|series letters (seriesLetters), brand|#name pattern (modelShape) and brand| → the category of (nearly) all the catalogue's devices of that line, series, pattern or brand (kindOf). */
export type LineCategories = ReadonlyMap<string, LineKind>;

/** The category a line stands for; `forms`: the categories of a line of desk computers of several forms, estimated as a desktop. */
export interface LineKind {
  id: string;
  forms?: string[];
}

/** A line stands for a category when it has at least this many devices, and this share of them is of one kind. */
export const MIN_LINE_DEVICES = 3;
export const MIN_LINE_SHARE = 0.9;

/** The product line a name starts with: its first word of three or more letters without a digit, brand words aside. */
function lineWord(text: string, brand: string): string | undefined {
  const brandWords = new Set(words(brand));
  return words(analyse(text)).find((w) => !brandWords.has(w) && w.length >= 3 && !/\d/.test(w));
}

/** The words of a name that can number a model: its brand's words and a written screen size left out. */
function modelWords(text: string, brand: string): string[] {
  const brandWords = new Set(words(brand));
  return words(analyse(text).replace(SCREEN_SIZE, ' ')).filter((w) => !brandWords.has(w));
}

/** The generation written after the word at `at` ("G5", "Gen 3": "5", "3"), or null. */
function generationAfter(tokens: readonly string[], at: number): string | null {
  const next = tokens[at + 1] ?? '';
  return (
    /^g(?:en)?(\d{1,2})$/.exec(next)?.[1] ?? (/^(?:gen|g)$/.test(next) && /^\d{1,2}$/.test(tokens[at + 2] ?? '') ? tokens[at + 2]! : null)
  );
}

/**
 * The shape of a name's model number: its first word with a digit (configuration words aside), runs
 * of letters as 'a' and each digit as '#', and ' g' when a generation follows ("P22a G4" → "a##a g").
 */
function modelShape(text: string, brand: string): string | undefined {
  const tokens = modelWords(text, brand);
  const at = tokens.findIndex((w) => /\d/.test(w) && !CONFIG_WORD.test(w));
  if (at < 0) return undefined;
  return `${tokens[at]!.replace(/[a-z]+/g, 'a').replace(/\d/g, '#')}${generationAfter(tokens, at) !== null ? ' g' : ''}`;
}

const fitGroupOf = (category: string): string => getCategory(category)?.parameters.fit_group ?? category;

/** Computers that stay on a desk, whatever their form: a line of them mixed is estimated as a desktop. */
const DESK_COMPUTERS: ReadonlySet<string> = new Set(['desktop', 'mini_pc', 'workstation', 'all_in_one', 'thin_client']);

/**
 * The category a set of devices stands for: MIN_LINE_SHARE of them of one kind (one calibration
 * group: PowerEdge rack, tower and blade servers are servers), and then its most common category;
 * else, MIN_LINE_SHARE of them desk computers of several forms (ThinkCentre Tiny, SFF, Tower and
 * all-in-ones), a desktop.
 */
function kindOf(byCategory: ReadonlyMap<string, number>): LineKind | undefined {
  const total = [...byCategory.values()].reduce((a, b) => a + b, 0);
  if (total < MIN_LINE_DEVICES) return undefined;
  const byGroup = new Map<string, number>();
  for (const [c, n] of byCategory) byGroup.set(fitGroupOf(c), (byGroup.get(fitGroupOf(c)) ?? 0) + n);
  const [group, n] = [...byGroup].sort((a, b) => b[1] - a[1])[0]!;
  const byCount = [...byCategory].sort((a, b) => b[1] - a[1]);
  if (n / total >= MIN_LINE_SHARE) return { id: byCount.find(([c]) => fitGroupOf(c) === group)![0] };
  const desk = byCount.filter(([c]) => DESK_COMPUTERS.has(c));
  return desk.reduce((a, [, k]) => a + k, 0) / total >= MIN_LINE_SHARE ? { id: 'desktop', forms: desk.map(([c]) => c) } : undefined;
}

/**
 * The category of each product line of the catalogue: a line word that only one brand's names
 * carry (a line name is a brand's: "ThinkVision", "iMac"; "Pro", "Tower" or "Mobile" are not),
 * with MIN_LINE_DEVICES or more devices, MIN_LINE_SHARE of them of one kind (kindOf); and so of each
 * line's series (the letters its model numbers start with: ThinkPad "P…"), of each brand's name
 * patterns and of each brand.
 */
export function lineCategories(entries: readonly CatalogueEntry[]): LineCategories {
  const brandsOfWord = new Map<string, Set<string>>();
  for (const e of entries) {
    for (const w of words(analyse(e.name))) brandsOfWord.set(w, (brandsOfWord.get(w) ?? new Set()).add(canonicalBrand(e.brand)));
  }
  const counts = new Map<string, Map<string, number>>();
  const add = (key: string, category: string) => {
    const byCategory = counts.get(key) ?? new Map<string, number>();
    byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    counts.set(key, byCategory);
  };
  for (const e of entries) {
    const brand = canonicalBrand(e.brand);
    const name = fold(e.name);
    add(`${brand}|`, e.category);
    const shape = modelShape(name, e.brand);
    if (shape !== undefined) add(`${brand}|#${shape}`, e.category);
    const line = lineWord(name, e.brand);
    if (line && brandsOfWord.get(line)!.size === 1) {
      add(`${brand}|${line}`, e.category);
      const series = seriesLetters(name, e.brand, line);
      if (series) add(`${brand}|${line}|${series}`, e.category);
    }
  }
  const lines = new Map<string, LineKind>();
  for (const [key, byCategory] of counts) {
    const kind = kindOf(byCategory);
    if (kind) lines.set(key, kind);
  }
  return lines;
}

/** Appends to the list under a key, starting it when missing. */
const pushTo = <K, T>(map: Map<K, T[]>, key: K, value: T): void => void (map.get(key) ?? map.set(key, []).get(key)!).push(value);

/** The middle of sorted values (the lower one of an even count). */
const middle = (sorted: readonly number[]): number => sorted[Math.floor((sorted.length - 1) / 2)]!;

/** Up to three device names, "…" when there are more. */
const listed = (devices: readonly { name: string }[]) =>
  devices
    .slice(0, 3)
    .map((d) => d.name)
    .join(', ') + (devices.length > 3 ? ', …' : '');

let builtIn: LineCategories | undefined;

/** lineCategories of the built-in catalogue, built on first use. */
export function builtInLineCategories(): LineCategories {
  builtIn ??= lineCategories(loadCatalogue());
  return builtIn;
}

/**
 * A name's model number, for dating it: its first word with a digit that is neither a configuration
 * word nor a one- or two-digit number (the screen size of "Inspiron 14 5420"), the product line
 * before it (its first word of three or more letters without a digit; else the model's own letters,
 * as in Dell's "P2419H" monitors) and the generation after it ("G5", "Gen 3").
 */
interface ModelNumber {
  line: string;
  model: string;
  /** The model with runs of letters as 'a' and digits as '#' ("840" → "###"). */
  shape: string;
  /** Its leading letters and the number of its digits ("t470p" → "t###", "E7250" → "e####"): one numbering. */
  series: string;
  digits: string;
  generation: string | null;
}

/** The letters a name's model number starts with, when it is numbered within `line` ("ThinkPad P52" → "p"). */
function seriesLetters(text: string, brand: string, line: string): string | undefined {
  const number = modelNumber(text, brand);
  // A generation ("G9" of "ZBook Fury 16 G9") numbers no model.
  if (!number || number.line !== line || /^g(?:en)?\d{1,2}$/.test(number.model)) return undefined;
  return /^[a-z]+/.exec(number.model)?.[0];
}

/** The model number of a name (ModelNumber); none when no word numbers a model. */
function modelNumber(text: string, brand: string): ModelNumber | undefined {
  const tokens = modelWords(text, brand);
  const at = tokens.findIndex((w) => /\d/.test(w) && !CONFIG_WORD.test(w) && !/^\d{1,2}$/.test(w));
  if (at < 0) return undefined;
  const model = tokens[at]!;
  const letters = /^[a-z]*/.exec(model)![0];
  const digits = model.replace(/\D/g, '');
  return {
    line: tokens.slice(0, at).find((w) => w.length >= 3 && !/\d/.test(w)) ?? letters,
    model,
    shape: model.replace(/[a-z]+/g, 'a').replace(/\d/g, '#'),
    series: `${letters}${'#'.repeat(digits.length)}`,
    digits,
    generation: generationAfter(tokens, at),
  };
}

/** A catalogue device and its release year. */
interface Dated {
  name: string;
  year: number;
}

/**
 * The catalogue's devices by what dates them, most specific first:
 * - `byModel`: brand|line|model|generation, the same model in another form ("OptiPlex 7090 Micro"
 *   for "OptiPlex 7090 Ultra", "Latitude 7310" for "Latitude 7310 2-in-1");
 * - `byGeneration`: brand|line|shape|generation, the line's models of the same generation (HP's
 *   "EliteBook 830 G6" and "840 G6" for "EliteBook 845 G6");
 * - `byDigit`: brand|line|series, the digit place that dates the line's models of that series without a
 *   generation, and the devices of each digit there (Dell's "Latitude 5410", "7410": a 1 third).
 */
export interface ReleaseYears {
  byModel: ReadonlyMap<string, readonly Dated[]>;
  byGeneration: ReadonlyMap<string, readonly Dated[]>;
  byDigit: ReadonlyMap<string, { place: number; share: number; devicesByDigit: ReadonlyMap<string, readonly Dated[]> }>;
}

/** A line is dated by a digit place when it has this many devices, and the place tells the year of this share of them. */
export const MIN_DATED_DEVICES = 5;
export const MIN_DIGIT_SHARE = 0.8;

/** The most common year of a set of devices (the earlier on a tie), and how many have it. */
function commonYear(devices: readonly Dated[]): { year: number; count: number } {
  const counts = new Map<number, number>();
  for (const d of devices) counts.set(d.year, (counts.get(d.year) ?? 0) + 1);
  const [year, count] = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]!;
  return { year, count };
}

/** ReleaseYears of a catalogue's devices (only the built-in catalogue's are used: builtInReleaseYears). */
export function releaseYears(entries: readonly CatalogueEntry[]): ReleaseYears {
  const byModel = new Map<string, Dated[]>();
  const byGeneration = new Map<string, Dated[]>();
  const undated = new Map<string, (Dated & { digits: string })[]>();
  for (const e of entries) {
    const number = modelNumber(fold(e.name), e.brand);
    if (!number || !e.release_year) continue;
    const brand = canonicalBrand(e.brand);
    const dated = { name: e.name, year: e.release_year };
    pushTo(byModel, `${brand}|${number.line}|${number.model}|${number.generation}`, dated);
    if (number.generation) pushTo(byGeneration, `${brand}|${number.line}|${number.shape}|${number.generation}`, dated);
    else pushTo(undated, `${brand}|${number.line}|${number.series}`, { ...dated, digits: number.digits });
  }
  const byDigit = new Map<string, { place: number; share: number; devicesByDigit: Map<string, Dated[]> }>();
  for (const [key, devices] of undated) {
    if (devices.length < MIN_DATED_DEVICES) continue;
    for (let place = 0; place < devices[0]!.digits.length; place++) {
      const groups = new Map<string, Dated[]>();
      for (const d of devices) pushTo(groups, d.digits[place]!, d);
      if (groups.size < 2) continue;
      const share = [...groups.values()].reduce((n, g) => n + commonYear(g).count, 0) / devices.length;
      if (share >= MIN_DIGIT_SHARE && share > (byDigit.get(key)?.share ?? 0)) byDigit.set(key, { place, share, devicesByDigit: groups });
    }
  }
  return { byModel, byGeneration, byDigit };
}

/** The years of devices within a year of each other: their middle one; else none (the devices disagree). */
function agreedYear(devices: readonly Dated[] | undefined): number | undefined {
  if (!devices?.length) return undefined;
  const sorted = devices.map((d) => d.year).sort((a, b) => a - b);
  return sorted.at(-1)! - sorted[0]! <= 1 ? middle(sorted) : undefined;
}

/** The release year of the catalogue's devices numbered like `text` (ReleaseYears), and which they are. */
function releaseYearOf(text: string, brand: string, years: ReleaseYears): { year: number; basis: string } | undefined {
  const number = modelNumber(text, brand);
  if (!number) return undefined;
  const key = canonicalBrand(brand);
  const sameModel = years.byModel.get(`${key}|${number.line}|${number.model}|${number.generation}`);
  const modelYear = agreedYear(sameModel);
  if (modelYear) return { year: modelYear, basis: `the built-in catalogue's ${listed(sameModel!)} (the same model number)` };
  if (number.generation) {
    const sameGeneration = years.byGeneration.get(`${key}|${number.line}|${number.shape}|${number.generation}`);
    const year = agreedYear(sameGeneration);
    return year ? { year, basis: `the built-in catalogue's ${listed(sameGeneration!)} (the same line and generation)` } : undefined;
  }
  const line = years.byDigit.get(`${key}|${number.line}|${number.series}`);
  const sameDigit = line?.devicesByDigit.get(number.digits[line.place]!);
  if (!line || !sameDigit || sameDigit.length < 2) return undefined;
  const place = `digit ${line.place + 1} of the model number, ${number.digits[line.place]}`;
  return {
    year: commonYear(sameDigit).year,
    basis: `the built-in catalogue's ${listed(sameDigit)} (${place}; that digit dates ${Math.round(line.share * 100)} % of the line's devices)`,
  };
}

let builtInYears: ReleaseYears | undefined;

/** releaseYears of the built-in catalogue, built on first use. */
export function builtInReleaseYears(): ReleaseYears {
  builtInYears ??= releaseYears(loadCatalogue());
  return builtInYears;
}

/**
 * Where two digits of a brand's model numbers give the screen size: per brand, the letters before
 * the digits, their count and the place of the two digits ("dell|p|4|0": the "24" of Dell's
 * "P2419H"), the catalogue's devices with a screen size numbered that way by the two digits' value.
 * A numbering reads the screen size when MIN_READ_DEVICES or more devices are numbered so and the two
 * digits are their screen size (within an inch) for MIN_READ_SHARE of them.
 */
export type ScreenReadings = ReadonlyMap<
  string,
  { share: number; devices: number; byValue: ReadonlyMap<number, readonly { name: string; inch: number }[]> }
>;

export const MIN_READ_DEVICES = 5;
export const MIN_READ_SHARE = 0.9;

/** The two-digit readings of a name's numbered words: numbering key and value ("p2419h" → dell|p|4|0 24, dell|p|4|1 41, …). */
function twoDigitReadings(text: string, brand: string): { key: string; value: number; place: number }[] {
  const out: { key: string; value: number; place: number }[] = [];
  const key = canonicalBrand(brand);
  for (const w of modelWords(text, brand)) {
    const m = /^([a-z]*)(\d{2,})[a-z0-9]*$/.exec(w);
    if (!m || CONFIG_WORD.test(w)) continue;
    const digits = m[2]!;
    for (let place = 0; place + 1 < digits.length; place++) {
      out.push({ key: `${key}|${m[1]}|${digits.length}|${place}`, value: Number(digits.slice(place, place + 2)), place });
    }
  }
  return out;
}

/** ScreenReadings of a catalogue's devices (only the built-in catalogue's are used: builtInScreenReadings). */
export function screenReadings(entries: readonly CatalogueEntry[]): ScreenReadings {
  const numbered = new Map<string, { name: string; inch: number; value: number }[]>();
  for (const e of entries) {
    const inch = e.specs?.screen_size_inch;
    if (typeof inch !== 'number' || !(inch > 0)) continue;
    const seen = new Set<string>();
    for (const r of twoDigitReadings(fold(e.name), e.brand)) {
      if (seen.has(r.key)) continue;
      seen.add(r.key);
      pushTo(numbered, r.key, { name: e.name, inch, value: r.value });
    }
  }
  const readings = new Map<string, { share: number; devices: number; byValue: Map<number, { name: string; inch: number }[]> }>();
  for (const [key, devices] of numbered) {
    const share = devices.filter((d) => Math.abs(d.value - d.inch) <= 1).length / devices.length;
    if (devices.length < MIN_READ_DEVICES || share < MIN_READ_SHARE) continue;
    const byValue = new Map<number, { name: string; inch: number }[]>();
    for (const d of devices) pushTo(byValue, d.value, { name: d.name, inch: d.inch });
    readings.set(key, { share, devices: devices.length, byValue });
  }
  return readings;
}

/**
 * The screen size a name's model number gives (ScreenReadings; the numbering with the most devices
 * when several apply): the middle screen size of the catalogue's devices with the same two digits
 * there ("P2799H" → Dell's P27xx monitors, 27), else the two digits themselves.
 */
function screenSizeOf(text: string, brand: string, readings: ScreenReadings): { inch: number; basis: string } | undefined {
  const found = twoDigitReadings(text, brand)
    .map((r) => ({ ...r, reading: readings.get(r.key) }))
    .filter((r) => r.reading !== undefined)
    .sort((a, b) => b.reading!.devices - a.reading!.devices)[0];
  if (!found) return undefined;
  const { reading, value, place } = found;
  const same = reading!.byValue.get(value) ?? [];
  const inch = same.length > 0 ? middle(same.map((d) => d.inch).sort((a, b) => a - b)) : value;
  const numbered = `digits ${place + 1}-${place + 2} give the screen size of ${Math.round(reading!.share * reading!.devices)} of the ${reading!.devices} devices of the built-in catalogue numbered so`;
  const basis = same.length > 0 ? `as for ${listed(same)} (${numbered})` : `(${numbered})`;
  return { inch, basis };
}

let builtInScreens: ScreenReadings | undefined;

/** screenReadings of the built-in catalogue, built on first use. */
export function builtInScreenReadings(): ScreenReadings {
  builtInScreens ??= screenReadings(loadCatalogue());
  return builtInScreens;
}

/**
 * Memory and storage a model name states ("iPhone 13 Pro 1TB", "Mac Studio M1 Max 32GB memory and
 * 512GB", "ThinkPad T14 16GB RAM 512GB SSD"). A capacity next to a memory word is memory, next to a
 * storage word storage (of that type); a capacity without such a word is storage only when it is more
 * than STORAGE_OVER_MEMORY times the category's default memory (a phone's "256GB", not a laptop's
 * "16GB" or "64GB", which name its memory as often as its storage), the largest when several are.
 * Two memory or two marked storage capacities (two drives) state no one value and are left out.
 */
export interface NamedCapacities {
  ram_gb?: number;
  storage_gb?: number;
  storage_type?: StorageType;
  /** The capacities as written ("1tb"), for data_sources. */
  written: { ram_gb?: string; storage_gb?: string };
}

export const STORAGE_OVER_MEMORY = 4;

const CAPACITY = /(?<![\w.,])(\d{1,5}(?:[.,]\d{1,2})?)\s*(gb|tb)\b/g;
const MEMORY_WORD = /^(?:ram|memory|unified|(?:lp)?ddr\d*x?)$/;
const STORAGE_WORDS: ReadonlyMap<string, StorageType | null> = new Map([
  ['ssd', 'ssd'],
  ['hdd', 'hdd'],
  ['emmc', 'emmc'],
  ['nvme', 'nvme'],
  ['storage', null],
  ['flash', null],
]);

export function readCapacities(name: string, defaultRamGb: number): NamedCapacities {
  const text = fold(name);
  const isKind = (w: string) => MEMORY_WORD.test(w) || STORAGE_WORDS.has(w);
  const found = [...text.matchAll(CAPACITY)].map((m) => ({
    gb: Number(m[1]!.replace(',', '.')) * (m[2] === 'tb' ? 1000 : 1),
    as: m[0].replace(/\s+/g, ''),
    next: /^\s*([a-z0-9]+)/.exec(text.slice(m.index + m[0].length))?.[1] ?? '',
    previous: /([a-z0-9]+)\s*$/.exec(text.slice(0, m.index))?.[1] ?? '',
  }));
  // A name writes its kind words after its capacities ("16GB RAM 512GB SSD") or before them ("SSD 1TB DDR4 8GB"), whichever it does more.
  const before = found.filter((c) => isKind(c.previous)).length > found.filter((c) => isKind(c.next)).length;
  const ram: { gb: number; as: string }[] = [];
  const storage: { gb: number; as: string; type: StorageType | null; marked: boolean }[] = [];
  for (const c of found) {
    const word = before ? c.previous : c.next;
    if (MEMORY_WORD.test(word)) ram.push(c);
    else storage.push({ ...c, type: STORAGE_WORDS.get(word) ?? null, marked: STORAGE_WORDS.has(word) });
  }
  const out: NamedCapacities = { written: {} };
  if (ram.length === 1) {
    out.ram_gb = ram[0]!.gb;
    out.written.ram_gb = ram[0]!.as;
  }
  const marked = storage.filter((c) => c.marked);
  const chosen =
    marked.length > 0
      ? marked.length === 1
        ? marked[0]
        : undefined
      : storage.filter((c) => c.gb > STORAGE_OVER_MEMORY * defaultRamGb).sort((a, b) => b.gb - a.gb)[0];
  if (chosen) {
    out.storage_gb = chosen.gb;
    out.written.storage_gb = chosen.as;
    if (chosen.type) out.storage_type = chosen.type;
  }
  return out;
}
