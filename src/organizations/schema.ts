import { builder } from '../graphql/builder.ts';
import { organizationOverview } from './overview.ts';
import { PERIOD_DESCRIPTION, PeriodInputRef, PeriodInventoryRef, inventoryOf } from '../inventory/schema.ts';

const Plan = builder.enumType('Plan', { values: ['free', 'pro', 'business', 'enterprise'] as const });

builder.prismaObject('Organization', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    plan: t.expose('plan', { type: Plan }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    asset_count: t.int({
      description: 'Number of assets in the inventory.',
      resolve: (_org, _args, { prisma }) => prisma.asset.count(),
    }),
    total_kg_co2e: t.float({
      description:
        'Sum of the current lifecycle totals of all assets (kg CO2e). A current lifecycle total of the inventory, not an inventory for a reporting period.',
      resolve: async (_org, _args, { prisma }) => (await organizationOverview(prisma)).total_kg_co2e,
    }),
    inventory: t.field({
      type: PeriodInventoryRef,
      description: `The organisation's greenhouse-gas inventory of a reporting period (as Query.inventory). ${PERIOD_DESCRIPTION}`,
      args: { period: t.arg({ type: PeriodInputRef, required: true }) },
      resolve: (_org, { period }, ctx) => inventoryOf(ctx, period),
    }),
  }),
});

builder.queryField('organization', (t) =>
  t.prismaField({
    type: 'Organization',
    description: "The caller's organisation.",
    authScopes: { organisation: true },
    // ctx.prisma is scoped to the caller's organisation (or the sandbox for test keys): the id filter is added there.
    resolve: (query, _root, _args, { prisma }) => prisma.organization.findFirstOrThrow({ ...query }),
  }),
);
