/**
 * Calculation engine v4: pure lifecycle carbon footprint functions (no I/O).
 */
export { CONFIDENCE_LEVELS, ENGINE_VERSION, lowestConfidence } from './constants.ts';
export * from './types.ts';
export { CATEGORIES, CATEGORY_IDS, getCategory } from './categories.ts';
export { ENGINE_PARAMETERS } from './parameters.ts';
export type {
  CalibrationAdjustments,
  EngineParameters,
  GroupAdjustment,
  GroupFit,
  ProductionMultipliers,
  ResidualPercentiles,
} from './parameters.ts';
export {
  calculateFootprint,
  footprintModel,
  confidenceFor,
  embodiedModel,
  uncertaintyPct,
  PUBLISHED_LOCATION_GRID,
} from './footprint.ts';
export type { DeviceContext } from './footprint.ts';
export { normaliseBrand, RELEASE_YEAR_MIN, usableReleaseYear } from './brand.ts';
export { adjustmentFor, adjustmentFeatures, ADJUSTMENT_FEATURES } from './adjustment.ts';
export { calculateSavings, savingsModel, equivalents, reuseUsePhase } from './savings.ts';
export {
  uncertaintyInterval,
  statedInterval,
  insideInterval,
  intervalErrorPct,
  INTERVAL_METHOD,
  SUMMED_INTERVAL_METHOD,
} from './interval.ts';
export type { StatedInterval, UncertaintyInterval } from './interval.ts';
export { roundTo, round1, round2, roundFootprint, roundSavings, roundRefurbishment } from './rounding.ts';
export { calculateRefurbishment, refurbishmentModel, GRADE_PROFILES, swapProductionKg } from './refurbishment.ts';
export { parseSwaps, SwapParseError, swapToken, SWAP_KINDS } from './swaps.ts';
export { outsideRealRange, specLimits, swapLimitProblems } from './limits.ts';
export {
  countSuppliedSpecs,
  isScreenType,
  isStorageType,
  resolveSpecs,
  screenAreaM2,
  SHEET_CONFIGURATION_FIELDS,
  sheetConfigurationFill,
  sheetConfigurationNote,
} from './specs.ts';
export type { ResolvedSpecs } from './specs.ts';
export { categoryHasField, ESTIMATE_BASES, specEstimates } from './spec-estimates.ts';
export type { EstimateBasis, SpecEstimate } from './spec-estimates.ts';
export { useRegionOf } from './transport.ts';
export {
  CRITERIA,
  CRITERION_UNIT,
  criterionResult,
  criterionRounding,
  electricityImpactFactors,
  FACTOR_UNCERTAINTY_PCT,
  IMPACT_SOURCES,
  summedCriterion,
} from './impacts.ts';
export { PRODUCTION_COMPONENTS } from './production.ts';
export type { ProductionComponent } from './production.ts';
export {
  allocated,
  allocateFigures,
  allocateFootprint,
  allocateRefurbishment,
  allocateSavings,
  allocationOf,
  allocationProblems,
  DURATION_YEARS_MAX,
} from './allocation.ts';
export type { Allocation, AllocationRequest } from './allocation.ts';
