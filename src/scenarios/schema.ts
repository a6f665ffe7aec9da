import { builder } from '../graphql/builder.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { keyCaller } from '../auth/access.ts';
import { MAX_SCENARIO_ASSETS, simulateRefurbish, type ScenarioOutcome } from './simulate.ts';
import { QUARTER_YEARS } from './refurbish.ts';

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
