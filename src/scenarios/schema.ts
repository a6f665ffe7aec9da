import { builder } from '../graphql/builder.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { CriterionRef } from '../footprint/impacts-schema.ts';
import { keyCaller } from '../auth/access.ts';
import { MAX_SCENARIO_ASSETS, simulateRefurbish, type ScenarioOutcome } from './simulate.ts';
import { QUARTER_YEARS, type ScenarioCriterion, type ScenarioSummary } from './refurbish.ts';

const ScenarioCriterionRef = builder.objectRef<ScenarioCriterion>('ScenarioCriterion').implement({
  description:
    'The quarter compared in one criterion, in its unit. GWP: kg CO2e to 2 decimals; ADPe and PE: 4 significant digits. ' +
    "current, scenario and difference: the same figures by phase, each with the ~80% interval of the assets' figures summed bound by bound " +
    "(errors taken as fully correlated: one model errs the same way for every asset it stands for) and the lowest confidence of the assets' footprints (docs/assets.md).",
  fields: (t) => ({
    unit: t.exposeString('unit', { description: 'kg CO2e (gwp), kg Sb eq (adpe), MJ (pe)' }),
    current_quarterly: t.exposeFloat('current_quarterly', { description: 'Buy new, for the quarter' }),
    scenario_quarterly: t.exposeFloat('scenario_quarterly', { description: 'Refurbish, for the quarter' }),
    delta: t.exposeFloat('delta', { description: 'scenario - current; negative: the scenario uses less' }),
    delta_percentage: t.exposeFloat('delta_percentage', { description: 'delta / current x 100' }),
    current: t.expose('current', {
      type: CriterionRef,
      description: "Buy new by phase (total = current_quarterly): the new device's production and transport, a quarter of its use",
    }),
    scenario: t.expose('scenario', {
      type: CriterionRef,
      description:
        "Refurbish by phase (total = scenario_quarterly): the refurbishment's own production and transport, the older device's quarter of use",
    }),
    difference: t.expose('difference', {
      type: CriterionRef,
      description: 'scenario - current by phase (total = delta), with the interval of the delta',
    }),
  }),
});

const ScenarioImpacts = builder.objectRef<ScenarioSummary['impacts']>('ScenarioImpacts').implement({
  description:
    "GWP, ADPe and PE of the comparison. The same quarters in each criterion: the new device's production and transport and a quarter of its " +
    "lifetime use, against that less the refurbishment's net savings in the criterion, phase by phase (docs/methodology.md section 13.2).",
  fields: (t) => ({
    gwp: t.expose('gwp', {
      type: ScenarioCriterionRef,
      description: 'kg CO2e: the same figures as current_quarterly_co2e, scenario_quarterly_co2e and delta',
    }),
    adpe: t.expose('adpe', {
      type: ScenarioCriterionRef,
      description: 'Abiotic depletion of elements, kg Sb eq',
    }),
    pe: t.expose('pe', {
      type: ScenarioCriterionRef,
      description: 'Primary energy, MJ',
    }),
  }),
});

const ScenarioResult = builder.objectRef<ScenarioOutcome>('ScenarioResult').implement({
  description:
    'What-if result for the coming quarter, kg CO2e. current: buying one new device per asset (its production and transport plus a quarter of use); ' +
    "scenario: refurbishing the existing devices (grade overhead plus a quarter of the older device's use). The existing devices' production is already incurred; " +
    'joint end of life is excluded. A negative delta means less estimated emission, not an inventory deduction. The inventory is not changed.',
  fields: (t) => ({
    current_quarterly_co2e: t.exposeFloat('current_quarterly_co2e', { description: 'Buy new, kg CO2e for the quarter' }),
    scenario_quarterly_co2e: t.exposeFloat('scenario_quarterly_co2e', { description: 'Refurbish, kg CO2e for the quarter' }),
    delta_kg_co2e: t.exposeFloat('delta_kg_co2e', { description: 'scenario - current; negative: the scenario emits less' }),
    delta_percentage: t.exposeFloat('delta_percentage', { description: 'delta / current x 100' }),
    affected_assets_count: t.exposeInt('affected_assets_count', { description: 'Distinct assets the scenario was applied to' }),
    grade: t.exposeString('grade', { description: 'Refurbishment grade: A Like New, B Good, C Fair' }),
    scenario_run_id: t.exposeID('scenario_run_id', { description: 'The logged run (scenario_runs)' }),
    assumptions: t.exposeStringList('assumptions'),
    impacts: t.expose('impacts', { type: ScenarioImpacts, description: 'The same comparison in GWP, ADPe and PE' }),
  }),
});

builder.mutationField('simulateRefurbish', (t) =>
  t.field({
    type: ScenarioResult,
    description:
      `Compares, for the coming quarter (${QUARTER_YEARS} years), buying one new device per asset with refurbishing the existing one. ` +
      `At most ${MAX_SCENARIO_ASSETS} distinct assets per call (larger portfolios are batched by the client); unknown ids are an ASSETS_NOT_FOUND error naming them. ` +
      'The inventory stays unchanged; each run is logged (scenario_runs, audit event scenario.simulate_refurbish).',
    // Each run is logged (scenario_runs): a write, which the read-only demo sandbox refuses.
    authScopes: { organisation: true, writes: true },
    args: {
      assetIds: t.arg.idList({ required: true, ...maxChars(TEXT_LIMITS.id) }),
      grade: t.arg.string({
        defaultValue: 'B',
        description: 'Refurbishment grade A (Like New), B (Good, default) or C (Fair)',
        ...maxChars(TEXT_LIMITS.shortCode),
      }),
    },
    resolve: (_root, { assetIds, grade }, { prisma, services, caller }) =>
      simulateRefurbish({ prisma, services, caller: keyCaller(caller) }, assetIds.map(String), grade),
  }),
);
