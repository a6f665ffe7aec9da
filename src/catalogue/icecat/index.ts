/**
 * Open Icecat JSON product API client: lookup by brand + product code or GTIN, with timeouts,
 * retries, Retry-After, a circuit breaker, and mapping of Icecat categories and features onto the
 * service's category ids and spec fields. Caching of answers is the caller's business.
 */
export {
  IcecatUnavailableError,
  type IcecatConfig,
  type IcecatLookup,
  type IcecatProduct,
  type IcecatSpecs,
  type IcecatUnavailableReason,
} from './types.ts';
export { IcecatClient, type IcecatClientDeps, DEFAULT_LANGUAGE, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from './client.ts';
export { looksLikeGtin, normalizeGtin, gtinCheckDigit } from './gtin.ts';
export { mapIcecatCategory, refineCategory, SERVICE_CATEGORY_IDS, type ServiceCategoryId } from './categories.ts';
export { toIcecatProduct, extractSpecs, flattenFeatures } from './mapping.ts';
export {
  parseWeightKg,
  parseScreenInch,
  parseDataSizeGb,
  parseWattHours,
  parseWatts,
  parseAnnualKwh,
  batteryWh,
} from './units.ts';
