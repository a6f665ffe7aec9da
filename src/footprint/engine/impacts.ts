/**
 * Impacts beyond carbon: abiotic depletion of elements (ADPe, kg Sb eq) and primary energy (PE, MJ)
 * per life-cycle phase, beside GWP. Factors are BoaviztAPI's published figures (component model,
 * ADEME device data, per-country electricity mix) typed into data/impact-factors/ with their
 * provenance; docs/methodology.md ("Impacts beyond carbon") lists them and the gaps.
 *
 * ADPe and PE are not calibrated: the fitted multipliers and the brand/year adjustment scale the GWP
 * only (they were fitted on GWP sheets), so these criteria come from the literature factors at the
 * device's resolved specs.
 */
import components from '../../../data/impact-factors/boavizta-components.json' with { type: 'json' };
import electricity from '../../../data/impact-factors/boavizta-electricity.json' with { type: 'json' };
import {
  BOAVIZTA,
  EMMC_BASE_KG,
  FREIGHT_KG_PER_TKM,
  KEYBOARD_TRACKPAD_KG,
  lowestConfidence,
  OLD_DEVICE_ENERGY_PENALTY,
} from './constants.ts';
import { criterionInterval, SUMMED_INTERVAL_METHOD } from './interval.ts';
import type { ComponentShape } from './parameters.ts';
import {
  type ComponentValues,
  type DieFactor,
  displayComponentKg,
  PRODUCTION_COMPONENTS,
  processorImpact,
  memoryKg,
  memoryModulesKg,
  rawProductionComponents,
  type StorageFactors,
  storageKg,
} from './production.ts';
import { round1, round2, roundSignificant } from './round.ts';
import type { ResolvedSpecs } from './specs.ts';
import { type FreightFactors, transportKg } from './transport.ts';
import type {
  AssemblyRegion,
  CategoryDefinition,
  Confidence,
  CriteriaResult,
  Criterion,
  CriterionPhases,
  CriterionResult,
  ElectricityImpactFactors,
  ImpactsResult,
  ResourceCriterion,
  Swap,
  UseRegion,
} from './types.ts';

export const CRITERIA = ['gwp', 'adpe', 'pe'] as const satisfies readonly Criterion[];

export const CRITERION_UNIT: Record<Criterion, string> = { gwp: 'kg CO2e', adpe: 'kg Sb eq', pe: 'MJ' };

const C = components.components;
const MM2_PER_CM2 = 100;
const MJ_PER_KWH = 3.6;

/** Provenance lines, cited in every criterion's `sources`. */
export const IMPACT_SOURCES = {
  components: `BoaviztAPI component factors (${components.repository}, ${components.file} at commit ${components.commit.slice(0, 12)}; UBA Texte 94/2021)`,
  devices: `ADEME Base Empreinte device factors via BoaviztAPI (${components.file} at commit ${components.commit.slice(0, 12)})`,
  transport_eol: `BoaviztAPI distribution and end-of-life factors (${components.file}, GPU model, at commit ${components.commit.slice(0, 12)})`,
  battery_pe: components.literature.battery_pe.source,
  electricity_adpe: `ADEME Base IMPACTS electricity mix (${electricity.adpe.vintage}) via BoaviztAPI (${electricity.files[0]} at commit ${electricity.commit.slice(0, 12)})`,
  electricity_pe: `BoaviztAPI primary energy of the electricity mix: ${electricity.pe.indicator.split(':')[1]?.trim() ?? ''} (${electricity.pe.vintage})`,
} as const;

/** Per-criterion factors of the engine's components, in the engine's units (die areas in cm2). */
interface ComponentFactors {
  processor: DieFactor;
  memory: DieFactor;
  storage: StorageFactors;
  /** criterion per kg CO2e of a component whose GWP the engine models and BoaviztAPI gives as a whole */
  per_kg_co2e: { mainboard: number; chassis: number; assembly: number; display: number };
  power_supply_per_kg: number;
  /** per Wh of battery capacity; null = no sourced factor (a gap) */
  battery_per_wh: number | null;
  freight_per_tkm: FreightFactors;
  end_of_life_per_kg: number;
}

const monitor = components.devices.records.monitor;

function componentFactors(c: ResourceCriterion): ComponentFactors {
  const cpu = C.cpu[c];
  const ssd = C.ssd[c];
  const perKgOf = (f: { gwp: { base: number } } & Record<ResourceCriterion, { base: number }>) => f[c].base / f.gwp.base;
  const t = components.transport;
  return {
    processor: { base: cpu.base, per_die_cm2: cpu.per_die_mm2 * MM2_PER_CM2 },
    memory: { base: C.ram[c].base, per_die_cm2: C.ram[c].per_die_cm2 },
    // eMMC/UFS: the engine's smaller-controller base (EMMC_BASE_KG of the SSD's) in the same proportion.
    storage: {
      flash: { base: ssd.base, per_die_cm2: ssd.per_die_cm2 },
      emmc_base: ssd.base * (EMMC_BASE_KG / BOAVIZTA.ssd_base_kg),
      hdd_per_drive: C.hdd[c].base,
    },
    per_kg_co2e: {
      mainboard: perKgOf(C.motherboard),
      chassis: perKgOf(C.case_rack),
      assembly: perKgOf(C.assembly),
      // ADEME gives no PE for a monitor: its fossil resource use (ADPf) stands in, a lower bound.
      display: (c === 'adpe' ? monitor.adpe : monitor.adpf) / monitor.gwp,
    },
    power_supply_per_kg: C.power_supply[c].base,
    battery_per_wh: c === 'pe' ? (components.literature.battery_pe.value_kwh_per_kwh * MJ_PER_KWH) / 1000 : null,
    // Per mode, BoaviztAPI's ratio of this criterion to GWP times the engine's GWP per tonne-km (DEFRA):
    // the route and mode model stays the GWP's, and the ratio is nearly the same for all three modes.
    freight_per_tkm: {
      air: FREIGHT_KG_PER_TKM.air * (t.plane[c] / t.plane.gwp),
      sea: FREIGHT_KG_PER_TKM.sea * (t.boat[c] / t.boat.gwp),
      road: FREIGHT_KG_PER_TKM.road * (t.truck[c] / t.truck.gwp),
    },
    end_of_life_per_kg: components.end_of_life[c],
  };
}

const FACTORS: Record<ResourceCriterion, ComponentFactors> = { adpe: componentFactors('adpe'), pe: componentFactors('pe') };

/**
 * Uncertainty of the factors themselves (percent, ~80 % multiplicative), added in quadrature to the
 * spec and energy uncertainty the GWP interval has. Engineering assumptions, stated in
 * docs/methodology.md with the peer comparison that bears on them: component ADPe factors of LCA
 * databases differ by about a factor of two (BoaviztAPI's component and ADEME's device figures for
 * the same servers and laptops do); PE is better constrained; the electricity factors are a 2011
 * vintage applied to today's mixes.
 */
export const FACTOR_UNCERTAINTY_PCT: Record<ResourceCriterion, { embodied: number; use: number }> = {
  adpe: { embodied: 100, use: 50 },
  pe: { embodied: 50, use: 30 },
};

const ELECTRICITY = new Map(electricity.records.map((r) => [r.region_code, r]));

/** The ADPe and PE per kWh of a country (a sub-national code takes its country's); WORLD when unknown. */
export function electricityImpactFactors(useRegion: string): ElectricityImpactFactors {
  const code = useRegion.trim().toUpperCase().slice(0, 2);
  const record = ELECTRICITY.get(code) ?? ELECTRICITY.get('WORLD');
  if (!record) throw new Error('data/impact-factors/boavizta-electricity.json has no WORLD record');
  return {
    region_code: record.region_code,
    adpe_kg_sb_eq_per_kwh: record.adpe_kg_sb_eq_per_kwh,
    pe_mj_per_kwh: record.pe_mj_per_kwh,
    source: `${IMPACT_SOURCES.electricity_adpe}; ${IMPACT_SOURCES.electricity_pe}`,
  };
}

export function electricityFactor(e: ElectricityImpactFactors, c: ResourceCriterion): number {
  return c === 'adpe' ? e.adpe_kg_sb_eq_per_kwh : e.pe_mj_per_kwh;
}

/** Production of each component in criterion `c`, from the device's resolved specs. */
export function productionComponentImpacts(
  c: ResourceCriterion,
  category: CategoryDefinition,
  specs: ResolvedSpecs,
  shape: ComponentShape,
): ComponentValues {
  const f = FACTORS[c];
  const p = category.parameters.production;
  const gwp = rawProductionComponents(category, specs, shape);
  return {
    chassis: gwp.chassis * f.per_kg_co2e.chassis,
    mainboard: gwp.mainboard * f.per_kg_co2e.mainboard,
    processor: processorImpact(specs.processor_tdp_w, category.defaults.processor_count, f.processor),
    memory: memoryKg(specs.ram_gb, p.ram_gb_per_module, f.memory),
    storage: storageKg(specs.storage_gb, specs.storage_type, p.hdd_gb_per_drive, f.storage),
    display: gwp.display * f.per_kg_co2e.display,
    battery: f.battery_per_wh === null ? 0 : Math.max(0, specs.battery_wh) * f.battery_per_wh,
    power_supply: p.power_supply_mass_kg * f.power_supply_per_kg,
    assembly: gwp.assembly * f.per_kg_co2e.assembly,
  };
}

/** Production of a replacement part in criterion `c` (the refurbishment's swaps). */
export function swapImpact(c: ResourceCriterion, swap: Swap, category: CategoryDefinition, shape: ComponentShape): number {
  const f = FACTORS[c];
  switch (swap.kind) {
    case 'battery':
      return f.battery_per_wh === null ? 0 : swap.wh * f.battery_per_wh;
    case 'storage':
      return storageKg(swap.gb, swap.storage_type, category.parameters.production.hdd_gb_per_drive, f.storage);
    case 'ram':
      return memoryModulesKg(swap.modules, swap.total_gb / swap.modules, f.memory);
    case 'display':
      return displayComponentKg(category, swap.inches, swap.screen_type, shape) * f.per_kg_co2e.display;
    case 'keyboard_trackpad':
      return KEYBOARD_TRACKPAD_KG * f.per_kg_co2e.chassis;
  }
}

export function freightImpact(
  c: ResourceCriterion,
  weightKg: number,
  shippingMassFactor: number,
  airShare: number,
  from: AssemblyRegion,
  to: UseRegion,
): number {
  return transportKg(weightKg, shippingMassFactor, airShare, from, to, FACTORS[c].freight_per_tkm).kg;
}

/** Road freight per tonne-km in criterion `c` (the refurbishment's logistics). */
export function roadPerTonneKm(c: ResourceCriterion): number {
  return FACTORS[c].freight_per_tkm.road;
}

export function endOfLifeImpact(c: ResourceCriterion, weightKg: number): number {
  return Math.max(0, weightKg) * FACTORS[c].end_of_life_per_kg;
}

/** Extra use phase of a kept or refurbished device in criterion `c` (reuseUsePhase's additional part). */
export function additionalUseImpact(annualKwh: number, years: number, perKwh: number): number {
  return annualKwh * OLD_DEVICE_ENERGY_PENALTY * Math.max(0, years) * perKwh;
}

/** Combined uncertainty of a criterion: the GWP-style spec/energy part and the factors' own, in quadrature. */
export function criterionUncertaintyPct(c: ResourceCriterion, structuralPct: number, embodied: number, use: number): number {
  const u = FACTOR_UNCERTAINTY_PCT[c];
  const total = embodied + use;
  const factorPct = total > 0 ? (embodied * u.embodied + use * u.use) / total : u.embodied;
  return Math.max(1, Math.round(Math.sqrt(structuralPct ** 2 + factorPct ** 2)));
}

/** Notes every ADPe/PE result carries: the proxies its factors use. */
export function criterionNotes(c: ResourceCriterion, hasBattery: boolean, electricityRegion: string, useRegion: string): string[] {
  const notes = [
    'not calibrated: literature factors at the resolved specs (the calibration scales GWP only)',
    'housing: factor of a rack server case per kg CO2e (proxy for every housing); mainboard: server motherboard per kg CO2e',
    c === 'adpe'
      ? 'display: ADEME monitor (whole device) ADPe per kg CO2e (proxy)'
      : 'display: ADEME monitor (whole device) fossil resource use (ADPf) per kg CO2e (proxy; a lower bound of PE)',
    'transport: BoaviztAPI ratio to GWP per freight mode on the GWP route; end of life: BoaviztAPI GPU-model factor per kg of device',
  ];
  if (hasBattery && c === 'adpe') notes.push('battery: no sourced ADPe factor; battery production not counted (gap)');
  if (electricityRegion === 'WORLD') notes.push(`use phase: no electricity factor for '${useRegion}': world average`);
  if (c === 'pe') notes.push('use phase PE: BoaviztAPI basis, fossil resource use / (1 - renewable share) of the mix');
  return notes;
}

export function criterionSources(c: ResourceCriterion, hasBattery: boolean): string[] {
  const sources: string[] = [IMPACT_SOURCES.components, IMPACT_SOURCES.devices, IMPACT_SOURCES.transport_eol];
  if (c === 'pe' && hasBattery) sources.push(IMPACT_SOURCES.battery_pe);
  sources.push(c === 'adpe' ? IMPACT_SOURCES.electricity_adpe : IMPACT_SOURCES.electricity_pe);
  return sources;
}

/** A criterion's result with its total and interval; figures unrounded (roundImpacts rounds them once). */
export function criterionResult(
  c: Criterion,
  phases: CriterionPhases,
  uncertaintyPct: number,
  confidence: Confidence,
  sources: string[],
  notes: string[],
  productionComponents?: ComponentValues,
): CriterionResult {
  const total = phases.production + phases.transport + phases.use + phases.end_of_life;
  const out: CriterionResult = {
    unit: CRITERION_UNIT[c],
    phases,
    total,
    uncertainty_pct: uncertaintyPct,
    interval: criterionInterval(total, uncertaintyPct, (v) => v),
    confidence,
    sources,
    notes,
  };
  if (productionComponents) {
    const byComponent: Record<string, number> = {};
    for (const k of PRODUCTION_COMPONENTS) byComponent[k] = productionComponents[k];
    out.production_components = byComponent;
  }
  return out;
}

/**
 * A criterion of the sum of several results (a scenario's assets), rounded once: phases and total summed;
 * the interval the parts' intervals summed bound by bound, errors taken as fully correlated (the same model
 * errs the same way for every asset it stands for; docs/methodology.md section 8, "Intervals of sums");
 * uncertainty_pct the parts' weighted by |total|, so that with parts of one sign the outer bound is
 * total x (1 + u) exactly (the inner one no further from the total than total / (1 + u)); the lowest
 * confidence; every part's sources and notes once. The parts are unrounded; `total` replaces the rounded
 * sum where the caller states a difference of two rounded figures.
 */
export function summedCriterion(c: Criterion, parts: readonly CriterionResult[], total?: number): CriterionResult {
  if (parts.length === 0) throw new RangeError('summedCriterion of no result');
  const round = criterionRounding(c);
  const sum = (value: (p: CriterionResult) => number) => parts.reduce((t, p) => t + value(p), 0);
  const weight = sum((p) => Math.abs(p.total));
  const uncertaintyPct =
    weight > 0 ? sum((p) => Math.abs(p.total) * p.uncertainty_pct) / weight : Math.max(...parts.map((p) => p.uncertainty_pct));
  return {
    unit: CRITERION_UNIT[c],
    phases: {
      production: round(sum((p) => p.phases.production)),
      transport: round(sum((p) => p.phases.transport)),
      use: round(sum((p) => p.phases.use)),
      end_of_life: round(sum((p) => p.phases.end_of_life)),
    },
    total: total ?? round(sum((p) => p.total)),
    uncertainty_pct: round1(uncertaintyPct),
    interval: { low: round(sum((p) => p.interval.low)), high: round(sum((p) => p.interval.high)), method: SUMMED_INTERVAL_METHOD },
    confidence: lowestConfidence(parts.map((p) => p.confidence)),
    sources: [...new Set(parts.flatMap((p) => p.sources))],
    notes: [...new Set(parts.flatMap((p) => p.notes))],
  };
}

/** GWP: kg CO2e to 2 decimals, like the breakdown; ADPe and PE to 4 significant digits. */
export function criterionRounding(c: Criterion): (v: number) => number {
  return c === 'gwp' ? round2 : (v) => roundSignificant(v, 4);
}

function roundCriterion(c: Criterion, r: CriterionResult): CriterionResult {
  const round = criterionRounding(c);
  const out: CriterionResult = {
    ...r,
    phases: {
      production: round(r.phases.production),
      transport: round(r.phases.transport),
      use: round(r.phases.use),
      end_of_life: round(r.phases.end_of_life),
    },
    total: round(r.total),
    interval: criterionInterval(r.total, r.uncertainty_pct, round),
  };
  if (r.production_components) {
    const byComponent: Record<string, number> = {};
    for (const [k, v] of Object.entries(r.production_components)) byComponent[k] = round(v);
    out.production_components = byComponent;
  }
  return out;
}

export function roundCriteria(i: CriteriaResult): CriteriaResult {
  return { gwp: roundCriterion('gwp', i.gwp), adpe: roundCriterion('adpe', i.adpe), pe: roundCriterion('pe', i.pe) };
}

export function roundImpacts(i: ImpactsResult): ImpactsResult {
  return { ...roundCriteria(i), electricity: i.electricity };
}

/**
 * The criteria of a result derived from a footprint's (savings, refurbishment): new phases, the
 * footprint's uncertainty, confidence and sources, its notes plus `notesOf`.
 */
export function derivedCriteria(
  footprint: CriteriaResult,
  phasesOf: (c: Criterion) => CriterionPhases,
  notesOf: (c: Criterion) => string[] = () => [],
): CriteriaResult {
  const one = (c: Criterion) => {
    const f = footprint[c];
    return criterionResult(c, phasesOf(c), f.uncertainty_pct, f.confidence, f.sources, [...f.notes, ...notesOf(c)]);
  };
  return { gwp: one('gwp'), adpe: one('adpe'), pe: one('pe') };
}
