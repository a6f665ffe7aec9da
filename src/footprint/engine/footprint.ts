/**
 * calculateFootprint: production + transport + use + end of life, confidence and uncertainty.
 * Pure: everything it needs comes from the input and the parameters loaded at module load.
 */
import { adjustmentFor } from './adjustment.ts';
import { usableReleaseYear } from './brand.ts';
import type { AdjustmentResult } from './adjustment.ts';
import { ENGINE_VERSION } from './constants.ts';
import { endOfLifeFactor, endOfLifeKg } from './end-of-life.ts';
import type { EngineParameters, GroupFit } from './parameters.ts';
import { ENGINE_PARAMETERS, categoryFit, groupFit } from './parameters.ts';
import type { ComponentValues } from './production.ts';
import { PRODUCTION_COMPONENTS, rawProductionComponents, scaleComponents, sumComponents } from './production.ts';
import type { ResolvedSpecs } from './specs.ts';
import { resolveSpecs } from './specs.ts';
import { transportKg, useRegionOf } from './transport.ts';
import type { TransportResult } from './transport.ts';
import type { CategoryDefinition, Confidence, FootprintInput, FootprintResult, PublishedFootprint } from './types.ts';
import { ENERGY_MODEL, energyUncertaintyPct } from './energy-model.ts';
import { annualKwh, usePhaseAssumption, usePhaseKg, usePhaseKwh } from './use-phase.ts';
import { round2, roundFootprint } from './rounding.ts';
import {
  criterionNotes,
  criterionResult,
  criterionSources,
  criterionUncertaintyPct,
  electricityFactor,
  electricityImpactFactors,
  endOfLifeImpact,
  freightImpact,
  productionComponentImpacts,
} from './impacts.ts';
import type { CriterionResult, ImpactsResult, ResourceCriterion } from './types.ts';

/** Re-exported for the report views; the rounding of engine results lives in rounding.ts. */
export { round1, round2 } from './rounding.ts';

/**
 * Grid factors (kg CO2e/kWh) of the aggregate use locations manufacturers print on PCF sheets.
 * Values: @tgwf/co2 0.19.0 averageIntensity (Ember yearly averages), g/kWh / 1000.
 * Used only to split a published total without a published use ratio.
 */
export const PUBLISHED_LOCATION_GRID: Record<string, number> = {
  EU: 0.21302,
  EUROPE: 0.285,
  US: 0.38355,
  USA: 0.38355,
  'NORTH AMERICA': 0.35836,
  WW: 0.47294,
  WORLD: 0.47294,
  WORLDWIDE: 0.47294,
  GLOBAL: 0.47294,
};

/** Confidence from the number of supplied spec fields (of the nine in DeviceSpecs). */
export function confidenceFor(suppliedSpecCount: number, published: boolean): Confidence {
  if (published) return 'manufacturer_verified';
  if (suppliedSpecCount >= 5) return 'estimated_high';
  if (suppliedSpecCount >= 2) return 'estimated_medium';
  return 'estimated_low';
}

/**
 * Uncertainty (percent of the total, ~80% coverage): the embodied part uses the cross-validated
 * 80th-percentile residual of the category's calibration group times the confidence multiplier
 * (or the manufacturers' median published error for verified footprints); the use part uses the
 * energy uncertainty (measured: the typical-consumption tolerance; estimated: the energy model's
 * cross-validated p80 at the confidence level, passed as estimatedUsePct); the two are combined as
 * correlated errors, weighted by their shares: sqrt(a^2 + b^2 + 2 rho a b) / total, rho the level's
 * fitted effective correlation of the embodied and estimated use-phase errors, and the use part
 * widened by the level's fitted factor where rho = 1 still covered too few totals (docs/methodology.md
 * section 8; rho 0 and no widening when the energy is measured or the footprint verified).
 */
export function uncertaintyPct(
  params: EngineParameters,
  fit: GroupFit,
  confidence: Confidence,
  embodiedKg: number,
  useKg: number,
  measuredEnergy: boolean,
  estimatedUsePct: number = params.use_phase_uncertainty_pct.profile,
): number {
  const uEmb =
    confidence === 'manufacturer_verified'
      ? params.manufacturer_error_pct
      : fit.residual_abs_pct.p80 * params.confidence_multipliers[confidence];
  const uUse = measuredEnergy ? params.use_phase_uncertainty_pct.measured : estimatedUsePct;
  const total = embodiedKg + useKg;
  if (!(total > 0)) return Math.round(uEmb);
  const estimatedUse = !measuredEnergy && confidence !== 'manufacturer_verified';
  const rho = estimatedUse ? (params.embodied_use_error_correlation?.[confidence] ?? 0) : 0;
  const widening = estimatedUse ? (params.total_use_widening?.[confidence] ?? 1) : 1;
  const a = embodiedKg * uEmb;
  const b = useKg * uUse * widening;
  const combined = Math.sqrt(a * a + b * b + 2 * rho * a * b) / total;
  return Math.max(1, Math.round(combined));
}

export interface EmbodiedModel {
  specs: ResolvedSpecs;
  /** the group fit; residual_abs_pct is the one that applies (unknown-brand residuals when the brand is not known) */
  fit: GroupFit;
  /** calibration adjustment (brand, release year, spec terms) already applied to components, transport and end of life */
  adjustment: AdjustmentResult;
  components: ComponentValues;
  production: number;
  transport: TransportResult;
  endOfLife: number;
  eolFactor: number;
  regionKnown: boolean;
}

/**
 * The group fit whose residual percentiles apply when the group has a calibration adjustment: the
 * unknown-brand ones when it does not know the brand (the interval then covers the pooled level),
 * the unknown-year ones when it knows the brand but no release year was given (the reference year
 * stood in for the brand's year terms).
 */
export function residualFit(groupFitValue: GroupFit, adjusted: boolean, brandKnown: boolean, yearKnown = true): GroupFit {
  if (!adjusted) return groupFitValue;
  const residuals = !brandKnown
    ? groupFitValue.residual_abs_pct_unknown_brand
    : !yearKnown
      ? groupFitValue.residual_abs_pct_unknown_year
      : undefined;
  return residuals ? { ...groupFitValue, residual_abs_pct: residuals } : groupFitValue;
}

/** Brand and release year of the device (optional inputs of the calibration adjustment). */
export interface DeviceContext {
  brand?: string;
  release_year?: number;
  /** the year is an estimate (FootprintInput.release_year_estimated): the unknown-year interval applies */
  release_year_estimated?: boolean;
}

/**
 * Parametric embodied footprint (production, transport, end of life) of a device: component
 * model x group multipliers, times the calibration adjustment of brand, release year and specs.
 */
export function embodiedModel(
  category: CategoryDefinition,
  specs: ResolvedSpecs,
  useRegion: string,
  params: EngineParameters = ENGINE_PARAMETERS,
  context: DeviceContext = {},
): EmbodiedModel {
  const groupFitValue = groupFit(params, category.parameters.fit_group);
  const adj = adjustmentFor(params.adjustments, category, specs, annualKwh(category, specs).kwh, context.brand, context.release_year);
  const f = adj.factor;
  const components = scaleComponents(rawProductionComponents(category, specs, groupFitValue.shape), groupFitValue.production_multipliers);
  for (const c of PRODUCTION_COMPONENTS) components[c] *= f;
  const region = useRegionOf(useRegion);
  const t = category.parameters.transport;
  const cf = categoryFit(params, category.id);
  const baseTransport = transportKg(
    specs.weight_kg,
    t.shipping_mass_factor,
    cf?.air_share ?? t.air_share,
    t.assembly_region,
    region ?? 'europe',
  );
  const transport = { ...baseTransport, kg: baseTransport.kg * f };
  const eolFactor = endOfLifeFactor(category, cf?.eol_kg_per_kg ?? null);
  const yearKnown = usableReleaseYear(context.release_year) !== null && !context.release_year_estimated;
  const fit = residualFit(groupFitValue, adj.group !== null, adj.brand_known, yearKnown);
  return {
    specs,
    fit,
    adjustment: adj,
    components,
    production: sumComponents(components),
    transport,
    endOfLife: endOfLifeKg(specs.weight_kg, category, cf?.eol_kg_per_kg ?? null) * f,
    eolFactor,
    regionKnown: region !== null,
  };
}

function adjustmentNote(adj: AdjustmentResult): string | null {
  if (adj.group === null) return null;
  const parts: string[] = [];
  if (adj.brand === null) parts.push('no brand: pooled level of the calibration group');
  else if (!adj.brand_known) parts.push(`brand '${adj.brand}' not in the calibration set: pooled level of the calibration group`);
  else parts.push(`brand '${adj.brand}' x${round2(Math.exp(adj.brand_log))} (fitted level of the manufacturer's published footprints)`);
  if (adj.year_used !== null) parts.push(`release year ${adj.year_used} x${round2(Math.exp(adj.year_log))}`);
  else if (!adj.brand_known) parts.push('no year trend (fitted for the calibrated manufacturers only)');
  else if (adj.group.reference_year !== null) parts.push(`no release year: reference year ${adj.group.reference_year}`);
  if (adj.spec_log !== 0) parts.push(`spec terms x${round2(Math.exp(adj.spec_log))}`);
  return `calibration adjustment x${round2(adj.factor)}: ${parts.join('; ')}`;
}

function publishedEmbodied(
  pub: PublishedFootprint,
  modelEmbodied: number,
  annual: number,
  fallbackGrid: number,
): { kg: number; note: string } {
  if (pub.use_ratio !== undefined && Number.isFinite(pub.use_ratio) && pub.use_ratio >= 0 && pub.use_ratio < 1) {
    return { kg: pub.total_kg * (1 - pub.use_ratio), note: `published use ratio ${pub.use_ratio}` };
  }
  const grid = PUBLISHED_LOCATION_GRID[(pub.use_location ?? '').trim().toUpperCase()] ?? fallbackGrid;
  const modelUse = usePhaseKg(annual, pub.lifetime_years, grid);
  const share = modelEmbodied / (modelEmbodied + modelUse);
  return {
    kg: pub.total_kg * share,
    note: `no published use ratio: embodied share ${round2(share * 100)}% modelled at ${pub.lifetime_years} years and ${grid} kg/kWh (${pub.use_location})`,
  };
}

/** The footprint as the API answers it: footprintModel, rounded once (rounding.ts). */
export function calculateFootprint(input: FootprintInput, params: EngineParameters = ENGINE_PARAMETERS): FootprintResult {
  return roundFootprint(footprintModel(input, params));
}

/**
 * The footprint with unrounded figures: the input of savingsModel and refurbishmentModel, so that
 * derived answers are rounded once from unrounded values (see rounding.ts).
 */
export function footprintModel(input: FootprintInput, params: EngineParameters = ENGINE_PARAMETERS): FootprintResult {
  const { category } = input;
  const specs = resolveSpecs(category, input.specs, input.release_year);
  const lifetime = input.lifetime_years !== undefined && input.lifetime_years > 0 ? input.lifetime_years : category.lifetime_years;
  const grid = Math.max(0, input.grid_factor_kg_per_kwh);
  const context: DeviceContext = {};
  if (input.brand !== undefined) context.brand = input.brand;
  if (input.release_year !== undefined) context.release_year = input.release_year;
  if (input.release_year_estimated) context.release_year_estimated = true;
  const m = embodiedModel(category, specs, input.use_region, params, context);
  const energy = usePhaseKwh(category, specs, context.release_year);
  const use = usePhaseKg(energy.kwh, lifetime, grid);

  const assumptions: string[] = [];
  const d = category.defaults;
  for (const f of specs.defaulted) {
    if (f === 'typical_consumption_kwh') continue;
    if (f === 'weight_kg' && (specs.weight_from_screen || specs.weight_battery_kg !== 0)) {
      const screen = specs.weight_from_screen
        ? ` at ${d.screen_size_inch} inch scaled to the ${specs.screen_size_inch}-inch screen (x (screen ratio)^${String(category.parameters.weight_screen_exponent)})`
        : '';
      const battery =
        specs.weight_battery_kg !== 0
          ? `${screen ? ',' : ''} with ${round2(specs.weight_battery_kg)} kg for the ${specs.battery_wh} Wh battery instead of the default ${d.battery_wh} Wh`
          : '';
      assumptions.push(`weight_kg not supplied: ${round2(specs.weight_kg)}, category default ${d.weight_kg} kg${screen}${battery}`);
    } else if ((f === 'ram_gb' || f === 'storage_gb') && specs.typical_year !== null) {
      assumptions.push(
        `${f} not supplied: ${specs[f]}, typical configuration of ${category.id} devices of ${specs.typical_year} (median of the catalogue)`,
      );
    } else {
      assumptions.push(`${f} not supplied: category default ${String(d[f])}`);
    }
  }
  assumptions.push(usePhaseAssumption(category, energy, usableReleaseYear(context.release_year) !== null, lifetime, grid));
  if (input.lifetime_years === undefined) assumptions.push(`lifetime: category default ${category.lifetime_years} years`);
  assumptions.push(
    `transport: ${round2(m.transport.shipped_mass_kg)} kg shipped from ${category.parameters.transport.assembly_region} to ${m.transport.use_region}, ${Math.round(m.transport.air_share * 100)}% by air`,
  );
  if (!m.regionKnown) assumptions.push(`use region '${input.use_region}' not recognised: Europe route assumed for transport`);
  assumptions.push(`end of life: ${m.eolFactor} kg CO2e per kg (${category.parameters.end_of_life.material_class}), cut-off approach`);
  const adjNote = adjustmentNote(m.adjustment);
  if (adjNote !== null) assumptions.push(adjNote);

  let components = m.components;
  let production = m.production;
  let transport = m.transport.kg;
  let endOfLife = m.endOfLife;
  const published = input.published !== undefined && input.published.total_kg > 0 ? input.published : undefined;
  if (published) {
    const modelEmbodied = production + transport + endOfLife;
    const pe = publishedEmbodied(published, modelEmbodied, energy.kwh, grid);
    const r = modelEmbodied > 0 ? pe.kg / modelEmbodied : 1;
    components = { ...components };
    for (const c of PRODUCTION_COMPONENTS) components[c] *= r;
    production *= r;
    transport *= r;
    endOfLife *= r;
    assumptions.push(
      `embodied emissions from the published product footprint (${published.total_kg} kg CO2e over ${published.lifetime_years} years, ${published.use_location}; ${pe.note}), split into phases and components by the parametric model; use phase recalculated for this country and lifetime`,
    );
    if (published.source_url) assumptions.push(`published footprint source: ${published.source_url}`);
  }

  const confidence = confidenceFor(input.supplied_spec_count, published !== undefined);
  const embodied = production + transport + endOfLife;
  const productionComponents: Record<string, number> = {};
  for (const c of PRODUCTION_COMPONENTS) productionComponents[c] = components[c];
  const gwpUncertainty = uncertaintyPct(
    params,
    m.fit,
    confidence,
    embodied,
    use,
    energy.measured,
    energyUncertaintyPct(ENERGY_MODEL, category, confidence),
  );
  const phases = { production, transport, use, end_of_life: endOfLife };
  const gwpNotes = published ? ['embodied phases scaled to the published product footprint'] : [];
  const gwp = criterionResult('gwp', phases, gwpUncertainty, confidence, [GWP_SOURCE], gwpNotes, components);
  const resource = { category, specs, model: m, annualKwh: energy.kwh, measuredEnergy: energy.measured, lifetime, input, params };
  const electricity = electricityImpactFactors(input.use_region);
  const impacts: ImpactsResult = {
    gwp,
    adpe: resourceCriterion('adpe', resource, electricity.region_code, electricityFactor(electricity, 'adpe'), published !== undefined),
    pe: resourceCriterion('pe', resource, electricity.region_code, electricityFactor(electricity, 'pe'), published !== undefined),
    electricity,
  };

  return {
    engine_version: ENGINE_VERSION,
    total_kg_co2e: embodied + use,
    breakdown: {
      production_kg: production,
      transport_kg: transport,
      use_phase_kg: use,
      end_of_life_kg: endOfLife,
    },
    confidence,
    uncertainty_pct: gwpUncertainty,
    lifetime_years: lifetime,
    annual_kwh: energy.kwh,
    production_components: productionComponents,
    assumptions,
    category: category.id,
    embodied_kg: embodied,
    grid_factor_kg_per_kwh: grid,
    transport: {
      assembly_region: category.parameters.transport.assembly_region,
      use_region: m.transport.use_region,
      air_share: m.transport.air_share,
      shipped_mass_kg: m.transport.shipped_mass_kg,
    },
    specs_used: {
      weight_kg: specs.weight_kg,
      screen_size_inch: specs.screen_size_inch,
      screen_type: specs.screen_type,
      processor_tdp_w: specs.processor_tdp_w,
      ram_gb: specs.ram_gb,
      storage_gb: specs.storage_gb,
      storage_type: specs.storage_type,
      battery_wh: specs.battery_wh,
      typical_consumption_kwh: specs.typical_consumption_kwh,
    },
    impacts,
  };
}

const GWP_SOURCE = `engine ${ENGINE_VERSION}: component model calibrated on manufacturers' product carbon footprints, grid factor of the country of use (data_sources; docs/methodology.md)`;

interface ResourceInputs {
  category: CategoryDefinition;
  specs: ResolvedSpecs;
  model: EmbodiedModel;
  annualKwh: number;
  measuredEnergy: boolean;
  lifetime: number;
  input: FootprintInput;
  params: EngineParameters;
}

/**
 * ADPe or PE of the footprint: production from the component factors at the resolved specs,
 * transport on the GWP's route and air share, end of life per kg, use from the same kWh as the GWP
 * times the country's factor. Its interval combines the GWP's spec and energy uncertainty (at this
 * criterion's phase shares) with the factors' own (impacts.ts FACTOR_UNCERTAINTY_PCT).
 */
function resourceCriterion(
  c: ResourceCriterion,
  r: ResourceInputs,
  electricityRegion: string,
  perKwh: number,
  published: boolean,
): CriterionResult {
  const { category, specs, model: m } = r;
  const t = category.parameters.transport;
  const components = productionComponentImpacts(c, category, specs, m.fit.shape);
  let production = 0;
  for (const k of PRODUCTION_COMPONENTS) production += components[k];
  const transport = freightImpact(
    c,
    specs.weight_kg,
    t.shipping_mass_factor,
    m.transport.air_share,
    t.assembly_region,
    m.transport.use_region,
  );
  const endOfLife = endOfLifeImpact(c, specs.weight_kg);
  const use = usePhaseKg(r.annualKwh, r.lifetime, perKwh);
  const embodied = production + transport + endOfLife;
  // A published product footprint states GWP only: these criteria stay estimates.
  const confidence = confidenceFor(r.input.supplied_spec_count, false);
  const structural = uncertaintyPct(
    r.params,
    m.fit,
    confidence,
    embodied,
    use,
    r.measuredEnergy,
    energyUncertaintyPct(ENERGY_MODEL, category, confidence),
  );
  const notes = criterionNotes(c, specs.battery_wh > 0, electricityRegion, r.input.use_region);
  if (published) notes.push('the published product footprint states GWP only: not used for this criterion');
  return criterionResult(
    c,
    { production, transport, use, end_of_life: endOfLife },
    criterionUncertaintyPct(c, structural, embodied, use),
    confidence,
    criterionSources(c, specs.battery_wh > 0),
    notes,
    components,
  );
}
