import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller, type Access } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import {
  SBTI_PROGRESS_FIELDS,
  SBTI_SCOPES,
  inventoryFrom,
  inventoryQuery,
  isSbtiScope,
  progressOf,
  type Inventory,
  type SbtiProgress,
} from './progress.ts';
import { SBTI_RULES, SBTI_STATUSES, createTarget, deleteTarget, updateTarget, type SbtiTargetFields } from './targets.ts';

const SbtiScope = builder.enumType('SbtiScope', {
  description:
    "Target boundary. Measured on the inventory: scope_1_2 its use phase (the devices' electricity), scope_3 production, transport and end of life, scope_1_2_3 all four.",
  values: Object.keys(SBTI_SCOPES) as (keyof typeof SBTI_SCOPES)[],
});
const SbtiTargetStatus = builder.enumType('SbtiTargetStatus', { values: SBTI_STATUSES });

type ProgressView = SbtiProgress & { measured_phases: readonly string[]; measured_at: Date | null };
const describe = (name: keyof SbtiProgress) => SBTI_PROGRESS_FIELDS.find((f) => f.name === name)!.description;

const SbtiProgressRef = builder.objectRef<ProgressView>('SbtiProgress').implement({
  description:
    "A target against the current inventory: the current whole-life figures of the organisation's assets in the phases of the scope (as Organization.total_kg_co2e counts them), " +
    'compared with the base-year figure, which must be measured the same way.',
  fields: (t) => ({
    target_kg_co2e: t.exposeFloat('target_kg_co2e', { description: describe('target_kg_co2e') }),
    current_kg_co2e: t.exposeFloat('current_kg_co2e', { nullable: true, description: describe('current_kg_co2e') }),
    expected_kg_co2e: t.exposeFloat('expected_kg_co2e', { description: describe('expected_kg_co2e') }),
    achieved_reduction_pct: t.exposeFloat('achieved_reduction_pct', { nullable: true, description: describe('achieved_reduction_pct') }),
    progress_pct: t.exposeFloat('progress_pct', { nullable: true, description: describe('progress_pct') }),
    on_track: t.exposeBoolean('on_track', { nullable: true, description: describe('on_track') }),
    measured_phases: t.exposeStringList('measured_phases', { description: 'Lifecycle phases counted for the scope' }),
    measured_at: t.expose('measured_at', { type: 'DateTime', nullable: true, description: 'Latest change of the inventory figures' }),
  }),
});

// One inventory read per request, however many targets are shown.
const inventories = new WeakMap<GraphQLContext, Promise<Inventory>>();
const inventoryOf = (ctx: GraphQLContext) => {
  let inventory = inventories.get(ctx);
  if (!inventory) inventories.set(ctx, (inventory = inventoryQuery(ctx.prisma).then(inventoryFrom)));
  return inventory;
};

builder.prismaObject('SbtiTarget', {
  description: 'A science-based emission reduction target of the organisation, with its progress.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    scope: t.field({ type: SbtiScope, resolve: (target) => target.scope as keyof typeof SBTI_SCOPES }),
    base_year: t.exposeInt('base_year'),
    base_year_kg_co2e: t.exposeFloat('base_year_kg_co2e', { description: 'Emissions of the scope in the base year, kg CO2e' }),
    target_year: t.exposeInt('target_year'),
    reduction_pct: t.exposeFloat('reduction_pct', { description: 'Reduction from the base year by the target year, percent' }),
    status: t.field({ type: SbtiTargetStatus, resolve: (target) => target.status as (typeof SBTI_STATUSES)[number] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
    progress: t.field({
      type: SbtiProgressRef,
      resolve: async (target, _args, ctx) => {
        const inventory = await inventoryOf(ctx);
        return {
          ...progressOf(target, inventory, new Date()),
          measured_phases: isSbtiScope(target.scope) ? SBTI_SCOPES[target.scope] : [],
          measured_at: inventory.measured_at,
        };
      },
    }),
  }),
});

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const fields = (required: boolean) => (t: InputFields) => ({
  name: t.string({ required, ...maxChars(SBTI_RULES.maxNameLength) }),
  scope: t.field({ type: SbtiScope, required }),
  base_year: t.int({ required, description: `From ${SBTI_RULES.firstBaseYear} to the current year` }),
  base_year_kg_co2e: t.float({ required, description: 'Emissions of the scope in the base year, kg CO2e, measured like the inventory' }),
  target_year: t.int({ required, description: `After base_year, at most ${SBTI_RULES.lastTargetYear}` }),
  reduction_pct: t.float({ required, description: 'Percent reduction from the base year, more than 0 and at most 100' }),
  status: t.field({ type: SbtiTargetStatus, required: false, description: required ? 'Default committed' : undefined }),
});
const SbtiTargetInput = builder.inputType('SbtiTargetInput', { fields: fields(true) });
const SbtiTargetPatch = builder.inputType('SbtiTargetPatch', {
  description: 'Fields to change; the others keep their values.',
  fields: fields(false),
});

const MANAGE: Access = { organisation: true, plan: 'sbtiTargets', writes: true };

builder.queryField('sbtiTargets', (t) =>
  t.prismaField({
    type: ['SbtiTarget'],
    description: "The organisation's SBTi targets, by target year, with their progress against the current inventory.",
    authScopes: { organisation: true },
    resolve: (query, _root, _args, { prisma }) =>
      prisma.sbtiTarget.findMany({ ...query, orderBy: [{ target_year: 'asc' }, { name: 'asc' }, { id: 'asc' }] }),
  }),
);

builder.mutationFields((t) => ({
  createSbtiTarget: t.prismaField({
    type: 'SbtiTarget',
    description: `Adds an SBTi target (business and enterprise plans; at most ${SBTI_RULES.maxTargetsPerOrganisation} per organisation). Audit event sbti.target.created.`,
    authScopes: MANAGE,
    args: { input: t.arg({ type: SbtiTargetInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) =>
      createTarget(ctx.prisma, keyCaller(ctx.caller), { status: 'committed', ...input } as SbtiTargetFields),
  }),
  updateSbtiTarget: t.prismaField({
    type: 'SbtiTarget',
    description:
      'Changes an SBTi target (business and enterprise plans); the whole target is checked again. Audit event sbti.target.updated.',
    authScopes: MANAGE,
    args: { id: t.arg.id({ required: true, ...maxChars(TEXT_LIMITS.id) }), patch: t.arg({ type: SbtiTargetPatch, required: true }) },
    resolve: (_query, _root, { id, patch }, ctx) =>
      updateTarget(ctx.prisma, keyCaller(ctx.caller), String(id), patch as Partial<SbtiTargetFields>),
  }),
  deleteSbtiTarget: t.id({
    description: 'Deletes an SBTi target (business and enterprise plans) and answers its id. Audit event sbti.target.deleted.',
    authScopes: MANAGE,
    args: { id: t.arg.id({ required: true, ...maxChars(TEXT_LIMITS.id) }) },
    resolve: (_root, { id }, ctx) => deleteTarget(ctx.prisma, keyCaller(ctx.caller), String(id)),
  }),
}));
