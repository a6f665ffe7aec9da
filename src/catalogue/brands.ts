/**
 * Brands: the caller's brand against a catalogue device's. Identification never crosses brands: a
 * lookup narrowed by a brand keeps only devices whose brand agrees with it (brandMatches), and a
 * brand with no letters the text analysis keeps, or one no catalogue device has, agrees with none.
 */
import { compact, fold, words } from './text.ts';
import { loadCatalogue } from './catalogue-data.ts';

/** Other names people give a brand (folded, compacted) → the catalogue's brand (compacted). */
const BRAND_SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
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
  }),
);

/**
 * Brand names written in other scripts → the brand's Latin name. Only names the companies
 * themselves use in those scripts, as in their registered company names: 株式会社東芝, 东芝(中国)有限公司;
 * レノボ・ジャパン合同会社, 联想集团有限公司, 聯想 (Taiwan); 戴尔(中国)有限公司, 台灣戴爾, デル・テクノロジーズ株式会社;
 * 中国惠普有限公司; 华为技术有限公司, 華為 (Taiwan); 小米集团; 三星电子, 삼성전자; 애플코리아 유한회사,
 * アップルジャパン (Apple Japan's former name), 苹果电脑贸易(上海)有限公司, 蘋果 (Taiwan); 富士通株式会社;
 * 华硕电脑 / 華碩電腦股份有限公司; 宏碁股份有限公司; ソニー株式会社, 索尼(中国)有限公司; キヤノン株式会社,
 * 佳能(中国)有限公司; セイコーエプソン株式会社, 爱普生(中国)有限公司; ブラザー工業株式会社; 京セラ株式会社;
 * 엘지전자 주식회사. Keys are folded as callers' brands are (brandAliasKey), so a katakana ボ and its
 * decomposed form are one key.
 */
const SCRIPT_ALIASES: Readonly<Record<string, string>> = {
  東芝: 'Toshiba',
  东芝: 'Toshiba',
  レノボ: 'Lenovo',
  联想: 'Lenovo',
  聯想: 'Lenovo',
  戴尔: 'Dell',
  戴爾: 'Dell',
  デル: 'Dell',
  惠普: 'HP',
  华为: 'Huawei',
  華為: 'Huawei',
  小米: 'Xiaomi',
  三星: 'Samsung',
  삼성: 'Samsung',
  삼성전자: 'Samsung',
  애플: 'Apple',
  アップル: 'Apple',
  苹果: 'Apple',
  蘋果: 'Apple',
  富士通: 'Fujitsu',
  华硕: 'Asus',
  華碩: 'Asus',
  宏碁: 'Acer',
  ソニー: 'Sony',
  索尼: 'Sony',
  キヤノン: 'Canon',
  佳能: 'Canon',
  エプソン: 'Epson',
  爱普生: 'Epson',
  ブラザー: 'Brother',
  京セラ: 'Kyocera',
  엘지: 'LG',
};

/** A brand as the alias table is keyed: folded, without spaces and punctuation, every script kept. */
export function brandAliasKey(brand: string): string {
  return fold(brand).replace(/[\s\p{P}\p{S}]+/gu, '');
}

const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(SCRIPT_ALIASES).map(([name, latin]) => [brandAliasKey(name), latin]));

/** The brand in the catalogue's script: its Latin name when the alias table has it, else as given. */
export function latinBrand(brand: string): string {
  return ALIASES.get(brandAliasKey(brand)) ?? brand;
}

/** A word that is another name of some brand ("hewlettpackard", "meraki"): never a model word. */
export const isBrandSynonym = (word: string): boolean => BRAND_SYNONYMS.has(word);

/** A caller's brand in the catalogue's script, compacted and mapped through the synonyms ("" when nothing is left). */
export function canonicalBrand(brand: string): string {
  const c = compact(latinBrand(brand));
  return BRAND_SYNONYMS.get(c) ?? c;
}

/**
 * Whether `given` names the brand of `entry`: equal after the alias table and compacting, a
 * synonym of it, or one a word-prefix of the other ("HPE" and "HPE Aruba", "Palo Alto" and "Palo
 * Alto Networks"). "Toshiba" also names its own entries (Canvio disks, POS), not only Dynabook.
 * A brand with nothing left after compacting ("שרת ישראלי", "日本") names no brand.
 */
export function brandMatches(entryBrand: string, given: string): boolean {
  const latin = latinBrand(given);
  const e = compact(entryBrand);
  const g = compact(latin);
  if (!g) return false;
  if (e === g || e === BRAND_SYNONYMS.get(g)) return true;
  const ew = words(entryBrand).join(' ');
  const gw = words(latin).join(' ');
  return (ew.startsWith(`${gw} `) || gw.startsWith(`${ew} `)) && gw.length >= 2;
}

/**
 * Brands that sell a product line under the caller's brand's name today: HP's server lines
 * (ProLiant, Synergy, Apollo, Edgeline) are Hewlett Packard Enterprise's since HP split in 2015,
 * and their sheets and asset lists still say HP. A name of such a line may match the successor's device.
 */
export function successorBrands(brand: string, model: string): string[] {
  return canonicalBrand(brand) === 'hp' && /\b(?:proliant|synergy|apollo|edgeline)\b/.test(fold(model)) ? ['HPE'] : [];
}

let catalogueBrands: readonly string[] | undefined;
/** unmatchableBrand's answers by brand: every footprint without a catalogue match asks. */
const unmatchable = new Map<string, string | undefined>();

/**
 * Why a brand can match no device of the built-in catalogue, or undefined when some device has
 * it: a brand with no letters the text analysis keeps and no alias, or a brand no device has.
 */
export function unmatchableBrand(brand: string): string | undefined {
  const given = brand.trim();
  if (unmatchable.has(given)) return unmatchable.get(given);
  catalogueBrands ??= [...new Set(loadCatalogue().map((e) => e.brand))];
  const why = !compact(latinBrand(given))
    ? `brand '${given}' has no Latin letters or digits and is not in the brand alias table (docs/catalogue.md): no catalogue device is used, since one of another brand could be`
    : catalogueBrands.some((b) => brandMatches(b, given))
      ? undefined
      : `brand '${given}' is not a brand of the built-in catalogue: no catalogue device is used, since a device of another brand never is`;
  if (unmatchable.size >= 10_000) unmatchable.clear();
  unmatchable.set(given, why);
  return why;
}
