/**
 * Icecat product data-sheet (Open Icecat JSON `data` object) -> IcecatProduct.
 *
 * The shape read here (Open Icecat JSON product requests manual):
 *   data.GeneralInfo.{IcecatId, Brand, BrandPartCode, ProductName, Title, GTIN[],
 *                     Category.{CategoryID, Name.{Value}}}
 *   data.FeaturesGroups[].{FeatureGroup.Name.Value,
 *                          Features[].{Value, PresentationValue,
 *                                      Feature.{Name.{Value}, Measure.{Signs.{_}}}}}
 * Feature names are Icecat's English labels ("Weight", "Display diagonal", "Panel type",
 * "Processor thermal design power (TDP)", "Internal memory", "Total storage capacity",
 * "Storage media", "Battery capacity (Watt-hours)", "Annual energy consumption", ...).
 */
import { looksLikeGtin, normalizeGtin } from './gtin.ts';
import { mapIcecatCategory, refineCategory } from './categories.ts';
import { batteryWh, parseAnnualKwh, parseDataSizeGb, parseScreenInch, parseWatts, parseWeightKg, type EnergyPeriod } from './units.ts';
import type { IcecatProduct, IcecatSpecs } from './types.ts';

/** One feature, flattened. */
export interface IcecatFeatureValue {
  /** Lower-cased, trimmed feature name. */
  name: string;
  /** PresentationValue, or Value + measure sign when there is no presentation value. */
  text: string;
  /** Value + measure sign ("1390 g"), the fallback when `text` does not parse. */
  raw: string;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** `{Value: "x"}` or a plain string. */
function localized(v: unknown): string | undefined {
  return isObject(v) ? str(v.Value) : str(v);
}

function measureSign(feature: Json): string {
  const measure = isObject(feature.Measure) ? feature.Measure : undefined;
  if (!measure) return str(feature.Sign) ?? '';
  const signs = measure.Signs;
  return (isObject(signs) ? str(signs._) : undefined) ?? str(measure.Sign) ?? '';
}

/** All features of the data-sheet, in document order. */
export function flattenFeatures(data: Json): IcecatFeatureValue[] {
  const out: IcecatFeatureValue[] = [];
  const groups = Array.isArray(data.FeaturesGroups) ? data.FeaturesGroups : [];
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group.Features)) continue;
    for (const f of group.Features) {
      if (!isObject(f)) continue;
      const def = isObject(f.Feature) ? f.Feature : {};
      const name = localized(def.Name)?.toLowerCase();
      if (!name) continue;
      const value = str(f.Value) ?? str(f.RawValue) ?? '';
      const sign = measureSign(def);
      const raw = sign && value ? `${value} ${sign}` : value;
      const text = str(f.PresentationValue) ?? raw;
      if (!text) continue;
      out.push({ name, text, raw });
    }
  }
  return out;
}

class FeatureIndex {
  private readonly byName = new Map<string, IcecatFeatureValue>();
  constructor(readonly all: IcecatFeatureValue[]) {
    for (const f of all) if (!this.byName.has(f.name)) this.byName.set(f.name, f);
  }
  get(name: string): IcecatFeatureValue | undefined {
    return this.byName.get(name);
  }
  /** First of `names` (priority order) whose value `parse` accepts, trying presentation then raw value. */
  pick<T>(names: readonly string[], parse: (text: string, f: IcecatFeatureValue) => T | undefined): T | undefined {
    for (const name of names) {
      const f = this.byName.get(name);
      if (!f) continue;
      const v = parse(f.text, f) ?? (f.raw !== f.text ? parse(f.raw, f) : undefined);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  /** Features whose name matches `pattern`, in document order. */
  matching(pattern: RegExp): IcecatFeatureValue[] {
    return this.all.filter((f) => pattern.test(f.name));
  }
}

const WEIGHT = [
  'weight',
  'weight (with stand)',
  'weight (with battery)',
  'device weight',
  'product weight',
  'net weight',
  'weight (without stand)',
  'weight (imperial)',
];
const SCREEN_SIZE = ['display diagonal', 'screen diagonal', 'display size', 'screen size', 'diagonal'];
const PANEL = ['panel type', 'display panel type', 'lcd panel type'];
const DISPLAY_TECH = ['display technology', 'display type', 'screen technology', 'backlight type', 'screen type'];
const TDP = ['processor thermal design power (tdp)', 'thermal design power (tdp)', 'processor tdp', 'tdp', 'processor base power'];
const RAM = ['internal memory', 'ram capacity', 'installed ram', 'ram', 'ram size', 'system memory', 'memory'];
const STORAGE = [
  'total storage capacity',
  'storage capacity',
  'internal storage capacity',
  'total ssds capacity',
  'total hdds capacity',
  'ssd capacity',
  'hdd capacity',
  'emmc capacity',
  'flash memory capacity',
  'internal storage',
];
const STORAGE_MEDIA = ['storage media', 'storage type', 'storage drive type', 'drive type'];
const BATTERY = ['battery capacity (watt-hours)', 'battery capacity (wh)', 'battery energy', 'battery capacity', 'battery capacity (mah)'];
const BATTERY_VOLTAGE = ['battery voltage', 'nominal battery voltage'];

const YES = /^(y|yes|true|1)$/i;

/** lcd | oled | ips | tn | va | mini_led from the panel type and display technology features. */
function screenType(features: FeatureIndex): string | undefined {
  const tech = DISPLAY_TECH.map((n) => features.get(n)?.text.toLowerCase()).filter((t): t is string => !!t);
  const panel = PANEL.map((n) => features.get(n)?.text.toLowerCase()).filter((t): t is string => !!t);
  // The backlight / emitter kind is the more specific fact; look at it first.
  for (const t of [...tech, ...panel]) {
    if (/mini[\s-]?led/.test(t)) return 'mini_led';
    if (/oled/.test(t)) return 'oled'; // OLED, AMOLED, "Dynamic AMOLED 2X", QD-OLED
  }
  for (const t of [...panel, ...tech]) {
    if (/\b(ips|pls|ads)\b/.test(t)) return 'ips';
    if (/\b(va|mva|pva|sva)\b/.test(t)) return 'va';
    if (/\btn\b|twisted nematic/.test(t)) return 'tn';
  }
  for (const t of [...tech, ...panel]) {
    if (/\b(lcd|led|tft|lcd\/tft)\b/.test(t)) return 'lcd';
  }
  return undefined;
}

function storageType(features: FeatureIndex): string | undefined {
  const nvme = features.get('nvme');
  if (nvme && (YES.test(nvme.text) || YES.test(nvme.raw))) return 'nvme';
  for (const n of ['ssd interface', 'storage interface', 'interface']) {
    const f = features.get(n);
    if (f && /nvme/i.test(f.text)) return 'nvme';
  }
  for (const n of STORAGE_MEDIA) {
    const t = features.get(n)?.text.toLowerCase();
    if (!t) continue;
    if (/nvme/.test(t)) return 'nvme';
    if (/\bssd\b|solid[\s-]state|flash/.test(t) && !/emmc/.test(t)) return 'ssd';
    if (/emmc/.test(t)) return 'emmc';
    if (/\bhdd\b|hard (disk )?drive/.test(t)) return 'hdd';
  }
  const capacity = (n: string) => features.get(n) !== undefined;
  if (capacity('total ssds capacity') || capacity('ssd capacity')) return 'ssd';
  if (capacity('emmc capacity')) return 'emmc';
  if (capacity('total hdds capacity') || capacity('hdd capacity')) return 'hdd';
  return undefined;
}

function batteryEnergy(features: FeatureIndex): number | undefined {
  const voltage = BATTERY_VOLTAGE.map((n) => features.get(n)).find((f) => f !== undefined);
  return features.pick(BATTERY, (text) => batteryWh(text, voltage?.text) ?? (voltage ? batteryWh(text, voltage.raw) : undefined));
}

const PRINTING = new Set(['printer', 'multifunction_printer', 'label_printer', 'scanner']);

/**
 * Annual energy from a stated energy consumption: "Annual energy consumption: 18.5 kWh",
 * "Typical Energy Consumption (TEC): 0.5 kWh/week". TEC without a stated period is taken per year
 * for computers (ENERGY STAR computers TEC is kWh/year) and per week for imaging equipment (ENERGY
 * STAR imaging TEC is kWh/week). Power draw in watts is not converted.
 */
function annualEnergy(features: FeatureIndex, category: string | null): number | undefined {
  for (const f of features.matching(/annual|per year|yearly|\(tec\)|\btec\b|typical (electricity|energy) consumption/)) {
    let period: EnergyPeriod | undefined;
    if (/annual|per year|yearly/.test(f.name)) period = 'year';
    else if (/per week|weekly/.test(f.name)) period = 'week';
    else period = category !== null && PRINTING.has(category) ? 'week' : 'year';
    const v = parseAnnualKwh(f.text, period) ?? parseAnnualKwh(f.raw, period);
    if (v !== undefined) return v;
  }
  return undefined;
}

export function extractSpecs(data: Json, category: string | null): IcecatSpecs {
  const features = new FeatureIndex(flattenFeatures(data));
  const specs: IcecatSpecs = {};
  const set = <K extends keyof IcecatSpecs>(key: K, value: IcecatSpecs[K] | undefined) => {
    if (value !== undefined) specs[key] = value;
  };
  set('weight_kg', features.pick(WEIGHT, parseWeightKg));
  set('screen_size_inch', features.pick(SCREEN_SIZE, parseScreenInch));
  set('screen_type', screenType(features));
  set(
    'processor_tdp_w',
    features.pick(TDP, parseWatts) ??
      features
        .matching(/thermal design power/)
        .filter((f) => !/graphic|gpu/.test(f.name))
        .map((f) => parseWatts(f.text) ?? parseWatts(f.raw))
        .find((v) => v !== undefined),
  );
  set('ram_gb', features.pick(RAM, parseDataSizeGb));
  set('storage_gb', features.pick(STORAGE, parseDataSizeGb));
  set('storage_type', storageType(features));
  set('battery_wh', batteryEnergy(features));
  set('typical_consumption_kwh', annualEnergy(features, category));
  return specs;
}

function firstGtin(v: unknown): string | undefined {
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  for (const item of list) {
    const s = str(item);
    if (s && looksLikeGtin(s)) return normalizeGtin(s);
  }
  return undefined;
}

/** Thrown by {@link toIcecatProduct} when the data-sheet lacks what identifies a product. */
export class IcecatShapeError extends Error {
  override name = 'IcecatShapeError';
}

/**
 * Maps the `data` object of a successful answer. `query` supplies the GTIN / product code that was
 * asked for, used when the data-sheet omits them.
 */
export function toIcecatProduct(data: unknown, query: { gtin?: string; productCode?: string } = {}): IcecatProduct {
  if (!isObject(data) || !isObject(data.GeneralInfo)) throw new IcecatShapeError('data.GeneralInfo is missing');
  const info = data.GeneralInfo;
  const icecatId = Number(info.IcecatId);
  if (!Number.isInteger(icecatId) || icecatId <= 0) throw new IcecatShapeError('GeneralInfo.IcecatId is missing');
  const brand = str(info.Brand) ?? (isObject(info.BrandInfo) ? str(info.BrandInfo.BrandName) : undefined) ?? '';
  const mpn = str(info.BrandPartCode) ?? query.productCode ?? '';
  const productName = str(info.ProductName);
  const title = str(info.Title) ?? (isObject(info.TitleInfo) ? str(info.TitleInfo.GeneratedIntTitle) : undefined);
  let name: string;
  if (productName) {
    name = brand && !productName.toLowerCase().startsWith(brand.toLowerCase()) ? `${brand} ${productName}` : productName;
  } else {
    name = title ?? [brand, mpn].filter(Boolean).join(' ');
  }
  const category = isObject(info.Category) ? info.Category : {};
  const icecatCategory = localized(category.Name) ?? '';

  const features = new FeatureIndex(flattenFeatures(data));
  const hints = {
    productType: features.get('product type')?.text,
    formFactor: features.get('form factor')?.text ?? features.get('chassis type')?.text,
    operatingSystem:
      features.get('operating system installed')?.text ?? features.get('operating system')?.text ?? features.get('platform')?.text,
  };
  const mapped = refineCategory(mapIcecatCategory(icecatCategory), { ...hints, ...(title ? { title } : {}) });

  const product: IcecatProduct = {
    icecat_id: icecatId,
    brand,
    mpn,
    name,
    icecat_category: icecatCategory,
    mapped_category: mapped,
    specs: extractSpecs(data, mapped),
  };
  const gtin = (query.gtin && looksLikeGtin(query.gtin) ? normalizeGtin(query.gtin) : undefined) ?? firstGtin(info.GTIN);
  if (gtin) product.gtin = gtin;
  return product;
}
