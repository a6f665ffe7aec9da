/**
 * GraphQL types of the impacts beyond carbon (GWP, ADPe, PE per phase), shared by the footprint,
 * batch, savings and refurbishment answers (docs/methodology.md, "Impacts beyond carbon").
 */
import { builder } from '../graphql/builder.ts';
import {
  CONFIDENCE_LEVELS,
  PRODUCTION_COMPONENTS,
  type CriteriaResult,
  type CriterionInterval,
  type CriterionPhases,
  type CriterionResult,
  type ElectricityImpactFactors,
  type ImpactsResult,
} from './engine/index.ts';

export const ConfidenceRef = builder.enumType('Confidence', {
  values: CONFIDENCE_LEVELS,
  description:
    "manufacturer_verified: a published product footprint was used; estimated_*: parametric, by how many specs of the unit were known (supplied, stated in the model name, or the model's published figures; not a catalogue's typical configuration): high 5 or more, medium 2-4, low 0-1",
});

const Phases = builder.objectRef<CriterionPhases>('CriterionPhases').implement({
  description:
    "A criterion's figure by life-cycle phase, in the criterion's unit. In savings and refurbishment answers: avoided amounts (production and transport of the new device not bought, less the refurbishment's own), use = the extra electricity of the older device (negative), end_of_life 0 (deferred, not avoided). " +
    "In scenario answers (simulateRefurbish), for the quarter: current = the new device's production and transport and a quarter of its use; " +
    "scenario = the refurbishment's own production (parts, testing; GWP also cleaning and packaging) and transport (logistics) and the older device's quarter of use; " +
    'difference = scenario - current, phase by phase (the avoided amounts, negated); end_of_life 0 on every side (joint end of life).',
  fields: (t) => ({
    production: t.exposeFloat('production'),
    transport: t.exposeFloat('transport'),
    use: t.exposeFloat('use'),
    end_of_life: t.exposeFloat('end_of_life'),
  }),
});

const Interval = builder.objectRef<CriterionInterval>('CriterionInterval').implement({
  description:
    'The ~80% interval of a criterion total, in its unit: total / (1 + u) to total x (1 + u), u = uncertainty_pct / 100 (for a negative net saving, the same relative width, low below high). ' +
    "Of a scenario's sums over assets: the assets' intervals summed bound by bound (errors taken as fully correlated; method says so).",
  fields: (t) => ({
    low: t.exposeFloat('low'),
    high: t.exposeFloat('high'),
    method: t.exposeString('method', { description: 'The form of the interval, in words' }),
  }),
});

const Components = builder.objectRef<Record<string, number>>('CriterionProductionComponents').implement({
  description: "Production of the device by component, in the criterion's unit; sums to phases.production (up to rounding).",
  fields: (t) =>
    Object.fromEntries(PRODUCTION_COMPONENTS.map((c) => [c, t.float({ resolve: (parent) => parent[c] ?? 0 })])) as Record<
      (typeof PRODUCTION_COMPONENTS)[number],
      ReturnType<typeof t.float>
    >,
});

export const CriterionRef = builder.objectRef<CriterionResult>('CriterionResult').implement({
  description:
    'One impact criterion of a result: per phase, total, uncertainty and interval, confidence, the sources of its factors and notes on their proxies and gaps.',
  fields: (t) => ({
    unit: t.exposeString('unit', { description: 'kg CO2e (gwp), kg Sb eq (adpe), MJ (pe)' }),
    phases: t.expose('phases', { type: Phases }),
    total: t.exposeFloat('total', { description: 'Sum of the phases. GWP: kg CO2e to 2 decimals; ADPe and PE: 4 significant digits' }),
    uncertainty_pct: t.exposeFloat('uncertainty_pct', {
      description:
        "u of the ~80% interval, percent. GWP: the footprint uncertainty_pct. ADPe and PE: the same spec and energy uncertainty at their own phase shares, combined in quadrature with the uncertainty of their factors (docs/methodology.md). Savings and refurbishment: that of the footprint. Scenario sums: the assets' weighted by the absolute value of their figure (for figures of one sign the outer bound of the interval is total x (1 + u))",
    }),
    interval: t.expose('interval', { type: Interval }),
    confidence: t.expose('confidence', {
      type: ConfidenceRef,
      description:
        "As the footprint confidence; a published product footprint verifies the GWP only, so ADPe and PE are never manufacturer_verified. Scenario sums: the lowest of the assets' levels",
    }),
    production_components: t.expose('production_components', { type: Components, nullable: true, description: 'Footprints only' }),
    sources: t.exposeStringList('sources', { description: 'Where the factors come from: repository, file, commit, publisher, vintage' }),
    notes: t.exposeStringList('notes', { description: 'Proxies and documented gaps of this criterion, in words' }),
  }),
});

const Electricity = builder.objectRef<ElectricityImpactFactors>('ElectricityImpactFactors').implement({
  description: 'ADPe and PE per kWh of the electricity of the country of use, as the use phase applied them.',
  fields: (t) => ({
    region_code: t.exposeString('region_code', {
      description: 'Country of the factor (ISO 3166-1 alpha-2; a subdivision takes its country), or WORLD when the country has none',
    }),
    adpe_kg_sb_eq_per_kwh: t.exposeFloat('adpe_kg_sb_eq_per_kwh'),
    pe_mj_per_kwh: t.exposeFloat('pe_mj_per_kwh', {
      description: 'BoaviztAPI basis: fossil resource use / (1 - renewable share) of the mix',
    }),
    source: t.exposeString('source'),
  }),
});

const CRITERIA_FIELDS = {
  gwp: 'Climate change, kg CO2e: the same figures as total_kg_co2e and breakdown',
  adpe: 'Abiotic depletion of elements (minerals and metals), kg Sb eq',
  pe: 'Primary energy, MJ',
} as const;

export const CriteriaRef = builder.objectRef<CriteriaResult>('ImpactCriteria').implement({
  description:
    'GWP, ADPe and PE by phase: of a savings or refurbishment result, the avoided amounts; of a stored calculation, its figures as the API answered them.',
  fields: (t) => ({
    gwp: t.expose('gwp', { type: CriterionRef, description: CRITERIA_FIELDS.gwp }),
    adpe: t.expose('adpe', { type: CriterionRef, description: CRITERIA_FIELDS.adpe }),
    pe: t.expose('pe', { type: CriterionRef, description: CRITERIA_FIELDS.pe }),
  }),
});

export const ImpactsRef = builder.objectRef<ImpactsResult>('Impacts').implement({
  description: 'GWP, ADPe and PE of a footprint by phase, with the electricity factors of the use phase.',
  fields: (t) => ({
    gwp: t.expose('gwp', { type: CriterionRef, description: CRITERIA_FIELDS.gwp }),
    adpe: t.expose('adpe', { type: CriterionRef, description: CRITERIA_FIELDS.adpe }),
    pe: t.expose('pe', { type: CriterionRef, description: CRITERIA_FIELDS.pe }),
    electricity: t.expose('electricity', { type: Electricity }),
  }),
});
