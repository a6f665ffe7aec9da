/**
 * Identification in the built-in device catalogue, one module per concern; this module is what
 * the rest of the service, the tests and the benchmarks import:
 *
 * - text.ts: folding, words and the small vocabularies names are read with;
 * - brands.ts: the caller's brand against a device's (synonyms, names in other scripts); a lookup
 *   never crosses brands;
 * - model-numbers.ts: the numbers that identify a model and the measures a name states;
 * - catalogue-index.ts: the search index (GET /v1/search) and the exact lookups (part number, name);
 * - matching.ts: when a model string names one device confidently, or the variants of one model;
 * - processors.ts, families.ts, typed-names.ts: processor words, families without a generation,
 *   names as printed on sheets and typed by users;
 * - resolution.ts: what a model string resolves to, trying the above in order.
 *
 * Each imports only the ones before it in this list.
 */
export type { CatalogueEntry, CatalogueSpecs } from './catalogue-data.ts';
export { loadCatalogue } from './catalogue-data.ts';
export { analyse, compact, CONFIG_WORD, fold, letterDigitParts, terms, unreadableWords, words } from './text.ts';
export { brandMatches, canonicalBrand, latinBrand, successorBrands, unmatchableBrand } from './brands.ts';
export { modelNumbers, numbersAgree, numbersExplained } from './model-numbers.ts';
export { CatalogueIndex, codeStems, fuzziness, type SearchHit, type SearchPage } from './catalogue-index.ts';
export {
  areVariants,
  distinguishingWords,
  matchModel,
  MAX_VARIANTS,
  MIN_MARGIN,
  modelMatchDetail,
  type ModelMatchDetail,
} from './matching.ts';
export { processorHint, vendorOf, type ProcessorHint, type ProcessorVendor } from './processors.ts';
export { familyKey, familyOf, MIN_FAMILY_SIZE } from './families.ts';
export { SCREEN_SIZE, typedNameReadings, type TypedNameReading } from './typed-names.ts';
export { alternativeNames, resolveModel, type ModelResolution } from './resolution.ts';
