import { builder } from '../graphql/builder.ts';
import type { PrismaClient } from '../db/database.ts';
import { organizationOverview, type OrganizationOverview } from './overview.ts';
import { PERIOD_DESCRIPTION, PeriodInputRef, PeriodInventoryRef, inventoryOf } from '../inventory/schema.ts';

/** One overview per Organization object of a response, however many of its figures the query selects. */
const overviews = new WeakMap<object, Promise<OrganizationOverview>>();
function overviewOf(org: object, prisma: PrismaClient): Promise<OrganizationOverview> {
  let overview = overviews.get(org);
  if (!overview) overviews.set(org, (overview = organizationOverview(prisma)));
  return overview;
}

const Plan = builder.enumType('Plan', { values: ['free', 'pro', 'business', 'enterprise'] as const });

builder.prismaObject('Organization', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    plan: t.expose('plan', { type: Plan }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    asset_count: t.int({
      description: 'Number of assets in the inventory.',
      resolve: async (org, _args, { prisma }) => (await overviewOf(org, prisma)).asset_count,
    }),
    total_kg_co2e: t.float({
      description:
        'Sum of the current lifecycle totals of all assets (kg CO2e). A current lifecycle total of the inventory, not an inventory for a reporting period.',
      resolve: async (org, _args, { prisma }) => (await overviewOf(org, prisma)).total_kg_co2e,
    }),
    adpe_kg_sb_eq: t.float({
      nullable: true,
      description:
        'Sum of the whole-life abiotic depletion of elements (ADPe, kg Sb eq) of the assets whose active calculation carries it ' +
        '(impacts_asset_count of them), to 4 significant digits. Null when no asset has it. When impacts_asset_count is below ' +
        'asset_count the sum is partial: the other assets are not calculated or were calculated before ADPe and PE, and are left out, not counted as 0.',
      resolve: async (org, _args, { prisma }) => (await overviewOf(org, prisma)).adpe_kg_sb_eq,
    }),
    pe_mj: t.float({
      nullable: true,
      description:
        'Sum of the whole-life primary energy (PE, MJ) of the assets whose active calculation carries it (impacts_asset_count of them), ' +
        'to 4 significant digits. Null when no asset has it; partial, as adpe_kg_sb_eq, when impacts_asset_count is below asset_count.',
      resolve: async (org, _args, { prisma }) => (await overviewOf(org, prisma)).pe_mj,
    }),
    impacts_asset_count: t.int({
      description:
        'Number of assets whose active calculation carries ADPe and PE: the assets adpe_kg_sb_eq and pe_mj sum (of asset_count).',
      resolve: async (org, _args, { prisma }) => (await overviewOf(org, prisma)).impacts_asset_count,
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
