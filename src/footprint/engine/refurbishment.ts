/**
 * Refurbishment impact (spec 4.1 /refurbishment): grade overhead, component swaps, adjusted use
 * phase in the reuse country, net savings against buying new, break-even years and the
 * production heatmap. Field meanings are documented in docs/methodology.md.
 */
import { ENGINE_VERSION, FREIGHT_KG_PER_TKM, KEYBOARD_TRACKPAD_KG, OLD_DEVICE_ENERGY_PENALTY } from './constants.ts';
import {
  additionalUseImpact,
  derivedCriteria,
  electricityFactor,
  electricityImpactFactors,
  roadPerTonneKm,
  swapImpact,
} from './impacts.ts';
import { round2, roundRefurbishment } from './rounding.ts';
import type { EngineParameters } from './parameters.ts';
import { ENGINE_PARAMETERS, groupFit } from './parameters.ts';
import { batteryKg, displayComponentKg, memoryModulesKg, PRODUCTION_COMPONENTS, storageKg } from './production.ts';
import type { ProductionComponent } from './production.ts';
import { resolveSpecs } from './specs.ts';
import { equivalents, reuseUsePhase } from './savings.ts';
import { swapToken } from './swaps.ts';
import type {
  CategoryDefinition,
  Grade,
  HeatmapEntry,
  RefurbishmentInput,
  RefurbishmentResult,
  RefurbishmentSwapResult,
  Swap,
} from './types.ts';

export interface GradeProfile {
  label: 'Like New' | 'Good' | 'Fair';
  /** cleaning agents, wipes, water and workshop energy for a 1.7 kg reference device, kg CO2e */
  cleaning_kg: number;
  /** diagnostics and burn-in electricity for a 25 kWh/year reference device, kWh */
  testing_kwh: number;
  /** replaced cosmetic and wear parts, share of the housing (chassis) production */
  parts_share_of_chassis: number;
  /** new packaging mass relative to the device mass */
  packaging_mass_ratio: number;
}

export const GRADE_PROFILES: Record<Grade, GradeProfile> = {
  A: { label: 'Like New', cleaning_kg: 1.0, testing_kwh: 3, parts_share_of_chassis: 0.1, packaging_mass_ratio: 0.35 },
  B: { label: 'Good', cleaning_kg: 0.6, testing_kwh: 2, parts_share_of_chassis: 0.05, packaging_mass_ratio: 0.25 },
  C: { label: 'Fair', cleaning_kg: 0.3, testing_kwh: 1, parts_share_of_chassis: 0.02, packaging_mass_ratio: 0.2 },
};

/** Corrugated board, kg CO2e per kg (European corrugated-board LCA averages, order of 0.7-1.0). */
export const CORRUGATED_KG_PER_KG = 0.9;
/** Reverse logistics (collection to refurbisher) plus delivery to the next user, km by road. */
export const REFURB_LOGISTICS_ROAD_KM = 1500;

const SWAP_COMPONENT: Record<Swap['kind'], ProductionComponent> = {
  battery: 'battery',
  storage: 'storage',
  ram: 'memory',
  display: 'display',
  keyboard_trackpad: 'chassis',
};

/** Production emissions of a replacement part, with the category's fitted block multipliers. */
export function swapProductionKg(swap: Swap, category: CategoryDefinition, params: EngineParameters = ENGINE_PARAMETERS): number {
  const fit = groupFit(params, category.parameters.fit_group);
  const m = fit.production_multipliers;
  switch (swap.kind) {
    case 'battery':
      return batteryKg(swap.wh, category) * m.electronics;
    case 'storage':
      return storageKg(swap.gb, swap.storage_type, category.parameters.production.hdd_gb_per_drive) * m.memory_storage;
    case 'ram':
      return memoryModulesKg(swap.modules, swap.total_gb / swap.modules) * m.memory_storage;
    case 'display':
      return displayComponentKg(category, swap.inches, swap.screen_type, fit.shape) * m.display;
    case 'keyboard_trackpad':
      return KEYBOARD_TRACKPAD_KG * m.structure;
  }
}

/** The refurbishment impact as the API answers it: refurbishmentModel, rounded once (rounding.ts). */
export function calculateRefurbishment(input: RefurbishmentInput, params: EngineParameters = ENGINE_PARAMETERS): RefurbishmentResult {
  return roundRefurbishment(refurbishmentModel(input, params));
}

/** The refurbishment impact with unrounded figures; pass the unrounded footprint (footprintModel) to round only once. */
export function refurbishmentModel(input: RefurbishmentInput, params: EngineParameters = ENGINE_PARAMETERS): RefurbishmentResult {
  const { category, footprint: f, grade } = input;
  const g = GRADE_PROFILES[grade];
  const s = resolveSpecs(category, input.specs);
  const years = Math.max(0, input.remaining_years);
  const grid = Math.max(0, input.reuse_grid_factor_kg_per_kwh);

  // overhead
  const sizeFactor = Math.min(10, Math.max(0.25, Math.sqrt(s.weight_kg / 1.7)));
  const energyFactor = Math.min(10, Math.max(0.3, Math.sqrt(category.fallback_kwh_per_year / 25)));
  const chassisKg = f.production_components.chassis ?? 0;
  const cleaning = g.cleaning_kg * sizeFactor;
  const testing = g.testing_kwh * energyFactor * grid;
  const parts = g.parts_share_of_chassis * chassisKg;
  const packaging = Math.max(0.1, g.packaging_mass_ratio * s.weight_kg) * CORRUGATED_KG_PER_KG;
  const shippedT = (s.weight_kg * category.parameters.transport.shipping_mass_factor) / 1000;
  const logistics = shippedT * REFURB_LOGISTICS_ROAD_KM * FREIGHT_KG_PER_TKM.road;
  const overheadTotal = cleaning + testing + parts + packaging + logistics;

  // swaps
  const swaps: RefurbishmentSwapResult[] = input.swaps.map((sw) => ({
    kind: sw.kind,
    token: swapToken(sw),
    component: SWAP_COMPONENT[sw.kind],
    production_kg: swapProductionKg(sw, category, params),
  }));
  const swapsTotal = input.swaps.reduce((t, sw) => t + swapProductionKg(sw, category, params), 0);
  const refurbTotal = overheadTotal + swapsTotal;

  // use phase in the reuse country
  const annualNew = f.annual_kwh;
  const annualRefurb = annualNew * (1 + OLD_DEVICE_ENERGY_PENALTY);
  const use = reuseUsePhase(annualNew, years, grid);
  const refurbUse = use.old_kg;
  const newUse = use.new_kg;
  const additional = use.additional_kg;

  const newProduction = f.breakdown.production_kg;
  const newTransport = f.breakdown.transport_kg;
  const gross = newProduction + newTransport;
  const net = gross - refurbTotal - additional;
  const extraPerYear = (annualRefurb - annualNew) * grid;
  const margin = gross - refurbTotal;
  // null: never; either the savings never turn positive, or the extra electricity never erodes them
  const breakEven = margin > 0 && extraPerYear > 0 ? margin / extraPerYear : null;

  // heatmap of the device's production
  const swapped = new Set(swaps.map((x) => x.component));
  const prodTotal = PRODUCTION_COMPONENTS.reduce((t, c) => t + (f.production_components[c] ?? 0), 0);
  const heatmap: HeatmapEntry[] = PRODUCTION_COMPONENTS.map((c) => {
    const kg = f.production_components[c] ?? 0;
    return { component: c, kg, share_pct: prodTotal > 0 ? (kg / prodTotal) * 100 : 0, swapped: swapped.has(c) };
  }).sort((a, b) => b.kg - a.kg);

  const assumptions = [
    `grade ${grade} (${g.label}): cleaning ${g.cleaning_kg} kg x size factor ${round2(sizeFactor)}, testing ${g.testing_kwh} kWh x energy factor ${round2(energyFactor)} at the reuse grid, parts ${g.parts_share_of_chassis * 100}% of housing production, packaging ${g.packaging_mass_ratio} kg board per kg device at ${CORRUGATED_KG_PER_KG} kg CO2e/kg, logistics ${REFURB_LOGISTICS_ROAD_KM} km by road`,
    `the refurbished device uses ${OLD_DEVICE_ENERGY_PENALTY * 100}% more electricity than a new equivalent; swaps do not change the energy model`,
    'avoided: production and transport of the new device that is not bought; end of life is deferred, not avoided',
    "break_even_years: years of use after which the refurbished device's extra electricity has used up the embodied savings (null: never)",
  ];

  const result: RefurbishmentResult = {
    engine_version: ENGINE_VERSION,
    grade,
    grade_label: g.label,
    remaining_life_years: years,
    overhead: {
      total_kg: overheadTotal,
      cleaning_kg: cleaning,
      testing_kg: testing,
      parts_kg: parts,
      packaging_kg: packaging,
      logistics_kg: logistics,
    },
    swaps,
    swaps_total_kg: swapsTotal,
    refurbishment_total_kg: refurbTotal,
    new_device: { production_kg: newProduction, transport_kg: newTransport, embodied_kg: gross },
    adjusted_use_phase: {
      reuse_grid_factor_kg_per_kwh: grid,
      annual_kwh_new: annualNew,
      annual_kwh_refurbished: annualRefurb,
      refurbished_use_phase_kg: refurbUse,
      new_device_use_phase_kg: newUse,
      additional_use_phase_kg: additional,
    },
    gross_avoided_kg: gross,
    net_savings_kg: net,
    net_savings_pct: gross > 0 ? (net / gross) * 100 : 0,
    break_even_years: breakEven,
    production_heatmap: heatmap,
    equivalents: equivalents(net),
    assumptions,
  };
  const fi = f.impacts;
  if (fi) {
    const electricity = input.reuse_region === undefined ? fi.electricity : electricityImpactFactors(input.reuse_region);
    const shape = groupFit(params, category.parameters.fit_group).shape;
    const testingKwh = g.testing_kwh * energyFactor;
    result.impacts = derivedCriteria(
      fi,
      (c) => {
        if (c === 'gwp') {
          return {
            production: newProduction - (cleaning + testing + parts + packaging + swapsTotal),
            transport: newTransport - logistics,
            use: -additional,
            end_of_life: 0,
          };
        }
        const perKwh = electricityFactor(electricity, c);
        const partsC = g.parts_share_of_chassis * (fi[c].production_components?.chassis ?? 0);
        const swapsC = input.swaps.reduce((t, sw) => t + swapImpact(c, sw, category, shape), 0);
        return {
          production: fi[c].phases.production - (testingKwh * perKwh + partsC + swapsC),
          transport: fi[c].phases.transport - shippedT * REFURB_LOGISTICS_ROAD_KM * roadPerTonneKm(c),
          use: -additionalUseImpact(annualNew, years, perKwh),
          end_of_life: 0,
        };
      },
      (c) => (c === 'gwp' ? [] : ['refurbishment cleaning and packaging: no sourced factor for this criterion, not counted (gap)']),
    );
  }
  return result;
}
