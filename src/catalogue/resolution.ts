/**
 * What a model string resolves to in the catalogue: the string as written (matching.ts), then its
 * readings as a typed or printed name (typed-names.ts), then the family it names (families.ts),
 * then the names of a sheet covering several. Every step is narrowed to the caller's brand.
 */
import type { CatalogueEntry } from './catalogue-data.ts';
import {
  analyse,
  compact,
  CONFIG_WORD,
  hasDigit,
  isYear,
  letterDigitParts,
  NOISE_WORDS,
  PROCESSOR_WORDS,
  terms,
  unreadableWords,
  wordForm,
  words,
} from './text.ts';
import type { CatalogueIndex } from './catalogue-index.ts';
import { numbersAgree } from './model-numbers.ts';
import { MIN_MARGIN, modelMatchDetail } from './matching.ts';
import { processorHint, vendorOf, type ProcessorHint } from './processors.ts';
import { familyOf } from './families.ts';
import { agreesWithDropped, typedNameReadings, type TypedNameReading } from './typed-names.ts';

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
  // Every word of a name must agree with the device; words the analysis cannot read cannot ("מחשב נייד דגם 14 פרו" is no iPhone 14).
  if (unreadableWords(model).length) return undefined;
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
  if (!hint?.rest || compact(hint.rest) === compact(model)) return undefined;
  // Without the processor words: "ThinkPad T14 Gen 3 i5-1245U" is the T14 Gen 3 (Intel).
  const bare = modelMatchDetail(index, hint.rest, brand);
  if (bare.variants) return withProcessor(bare.variants, hint);
  if (!bare.hit || bare.margin < MIN_MARGIN) return undefined;
  const vendor = vendorOf(bare.hit.entry);
  return vendor && vendor !== hint.vendor ? undefined : { kind: 'device', entry: bare.hit.entry, score: bare.hit.score };
}

function withProcessor(candidates: CatalogueEntry[], hint: ProcessorHint | undefined): ModelResolution {
  const picked = hint ? candidates.filter((e) => vendorOf(e) === hint.vendor) : [];
  return picked.length === 1
    ? { kind: 'variants', candidates, chosen: picked[0], processor: hint!.text }
    : { kind: 'variants', candidates };
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
      if (
        (i < firstNumber && !hasDigit(w)) ||
        brandWords.has(w) ||
        NOISE_WORDS.has(w) ||
        isYear(w) ||
        CONFIG_WORD.test(w) ||
        PROCESSOR_WORDS.has(w) ||
        read.has(wordForm(w))
      )
        return true;
      const parts = letterDigitParts(w);
      return (parts.length > 0 && parts.every((p) => read.has(wordForm(p)))) || (hasDigit(w) && joined.includes(w));
    });
    return covered && agreesWithDropped(e, reading);
  });
}
