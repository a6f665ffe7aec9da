import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller, type Access } from '../auth/access.ts';
import { checkedBy } from '../validation/schemas.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import {
  coverageShare,
  createInstrument,
  deleteInstrument,
  findInstrument,
  INSTRUMENT_PAGE,
  INSTRUMENT_RULES,
  listInstruments,
  supplierFactor,
  updateInstrument,
  type InstrumentContext,
  type InstrumentPage,
  type InstrumentRow,
} from './instruments.ts';

// Contractual instruments for market-based Scope 2 (docs/inventory-market-based.md), on GraphQL and, through SOFA, REST.

const TAGS = ['Contractual instruments'];
const READ: Access = { organisation: true };
const WRITE: Access = { organisation: true, writes: true };

const instrumentContext = (ctx: GraphQLContext): InstrumentContext => ({
  prisma: ctx.prisma,
  caller: keyCaller(ctx.caller),
  reference: ctx.services.reference,
});

const InstrumentKind = builder.enumType('ContractualInstrumentKind', {
  description: 'What a contractual instrument conveys (GHG Protocol Scope 2 Guidance, chapter 7).',
  values: {
    supplier_specific: {
      description:
        'A supplier-specific emission factor (kg CO2e per kWh) for the electricity bought in the country: emission_factor_kg_per_kwh',
    },
    energy_attribute_certificate: {
      description:
        'Energy attribute certificates (guarantees of origin, RECs, I-RECs) covering coverage_share of the consumption in the country, counted at zero emissions',
    },
  } as const,
});

const ContractualInstrumentRef = builder.objectRef<InstrumentRow>('ContractualInstrument').implement({
  description:
    "A contractual instrument of your organisation for market-based Scope 2: for the electricity consumed in `country` on the days valid_from to valid_to (both included), either a supplier's emission factor or certificates covering a share of it.",
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.field({ type: InstrumentKind, resolve: (row) => row.kind }),
    country: t.exposeString('country', {
      description: 'Region code of the consumption it applies to (ISO 3166-1 alpha-2, or a subdivision such as US-CA)',
    }),
    valid_from: t.field({ type: 'Date', description: 'First day it applies to', resolve: (row) => row.valid_from }),
    valid_to: t.field({ type: 'Date', description: 'Last day it applies to (included)', resolve: (row) => row.valid_to }),
    emission_factor_kg_per_kwh: t.exposeFloat('emission_factor_kg_per_kwh', {
      nullable: true,
      description: "supplier_specific: the supplier's emission factor, kg CO2e per kWh; null for certificates",
    }),
    coverage_share: t.exposeFloat('coverage_share', {
      nullable: true,
      description: 'energy_attribute_certificate: share of the consumption covered, more than 0 and at most 1; null for supplier factors',
    }),
    label: t.exposeString('label', { nullable: true, description: 'Your name for it (contract, certificate batch)' }),
    created_at: t.field({ type: 'DateTime', resolve: (row) => row.created_at }),
    updated_at: t.field({ type: 'DateTime', resolve: (row) => row.updated_at }),
  }),
});

const ContractualInstrumentPageRef = builder.objectRef<InstrumentPage>('ContractualInstrumentPage').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Instruments matching the filter' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    instruments: t.expose('instruments', { type: [ContractualInstrumentRef] }),
  }),
});

const idArg = { required: true, description: 'The contractual instrument id (UUID)', ...maxChars(TEXT_LIMITS.id) } as const;
const FACTOR = `kg CO2e per kWh, 0 to ${INSTRUMENT_RULES.maxSupplierFactorKgPerKwh}`;
const SHARE = 'more than 0 and at most 1';
const DAYS = `from ${INSTRUMENT_RULES.firstDay} to ${INSTRUMENT_RULES.lastDay}`;
const SPAN = `${DAYS}, on or after valid_from and at most ${INSTRUMENT_RULES.maxSpanDays} days from it`;
const OVERLAP_409 = {
  409: 'The instrument would overlap another of the same kind and country: a second supplier-specific factor on one day, or certificates covering more than 100 % of a day (CONTRACTUAL_INSTRUMENT_OVERLAP); or the organisation has the most instruments it may have (CONTRACTUAL_INSTRUMENT_LIMIT)',
} as const;

builder.queryFields((t) => ({
  contractualInstruments: t.field({
    type: ContractualInstrumentPageRef,
    description: `Your organisation's contractual instruments, by country and first day, ${INSTRUMENT_PAGE.default} per page by default and at most ${INSTRUMENT_PAGE.max}.`,
    authScopes: READ,
    extensions: {
      rest: { method: 'GET', path: '/inventory/instruments', summary: 'List the contractual instruments', tags: TAGS },
      pageSize: INSTRUMENT_PAGE,
    },
    args: {
      kind: t.arg({ type: InstrumentKind, description: 'Only instruments of this kind' }),
      country: t.arg.string({ description: 'Only instruments of this region code', ...maxChars(TEXT_LIMITS.country) }),
      limit: t.arg.int({ description: `Page size, 1 to ${INSTRUMENT_PAGE.max} (default ${INSTRUMENT_PAGE.default})` }),
      offset: t.arg.int({ description: 'Instruments to skip (default 0)' }),
    },
    resolve: (_root, args, ctx) => listInstruments(instrumentContext(ctx), args),
  }),
  contractualInstrument: t.field({
    type: ContractualInstrumentRef,
    nullable: true,
    description: 'One contractual instrument of your organisation (null, over REST 404, for an id your organisation does not have).',
    authScopes: READ,
    extensions: {
      rest: {
        method: 'GET',
        path: '/inventory/instruments/:id',
        summary: 'Get a contractual instrument',
        tags: TAGS,
        nullIsNotFound: 'Contractual instrument',
      },
    },
    args: { id: t.arg.id(idArg) },
    resolve: (_root, { id }, ctx) => findInstrument(ctx.prisma, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  createContractualInstrument: t.field({
    type: ContractualInstrumentRef,
    description:
      'Records a contractual instrument for market-based Scope 2: a supplier-specific factor (emission_factor_kg_per_kwh, no coverage_share) or ' +
      'energy attribute certificates (coverage_share, no factor). One supplier-specific factor per country and day; certificates of one country ' +
      `cover at most 100 % of any day. At most ${INSTRUMENT_RULES.maxPerOrganisation} per organisation. Audit event contractual_instrument.created.`,
    authScopes: WRITE,
    extensions: {
      rest: {
        method: 'POST',
        path: '/inventory/instruments',
        summary: 'Record a contractual instrument',
        responseStatus: 201,
        tags: TAGS,
        idempotent: true,
        errors: OVERLAP_409,
      },
    },
    args: {
      kind: t.arg({ type: InstrumentKind, required: true }),
      country: t.arg.string({
        required: true,
        description: 'Region code of the consumption it applies to (ISO 3166-1 alpha-2, or a subdivision such as US-CA)',
        ...maxChars(TEXT_LIMITS.country),
      }),
      valid_from: t.arg({ type: 'Date', required: true, description: `First day it applies to, ${DAYS}` }),
      valid_to: t.arg({ type: 'Date', required: true, description: `Last day it applies to (included), ${SPAN}` }),
      emission_factor_kg_per_kwh: t.arg.float({
        description: `supplier_specific only (required there): the supplier's factor, ${FACTOR}`,
        ...checkedBy(supplierFactor),
      }),
      coverage_share: t.arg.float({
        description: `energy_attribute_certificate only (required there): share of the consumption covered, ${SHARE}`,
        ...checkedBy(coverageShare),
      }),
      label: t.arg.string({ description: 'Your name for it', ...maxChars(INSTRUMENT_RULES.maxLabelLength) }),
    },
    resolve: (_root, args, ctx) => createInstrument(instrumentContext(ctx), args),
  }),
  updateContractualInstrument: t.field({
    type: ContractualInstrumentRef,
    description:
      'Changes a contractual instrument: the fields given replace their values (an empty label removes it), the whole instrument and the overlap rule are checked again. ' +
      'The kind cannot change: delete the instrument and record another. Audit event contractual_instrument.updated.',
    authScopes: WRITE,
    extensions: {
      rest: {
        method: 'PATCH',
        path: '/inventory/instruments/:id',
        summary: 'Change a contractual instrument',
        tags: TAGS,
        errors: OVERLAP_409,
      },
    },
    args: {
      id: t.arg.id(idArg),
      country: t.arg.string({ description: 'Region code of the consumption it applies to', ...maxChars(TEXT_LIMITS.country) }),
      valid_from: t.arg({ type: 'Date', description: `First day it applies to, ${DAYS}` }),
      valid_to: t.arg({ type: 'Date', description: `Last day it applies to (included), ${SPAN}` }),
      emission_factor_kg_per_kwh: t.arg.float({ description: `supplier_specific only: ${FACTOR}`, ...checkedBy(supplierFactor) }),
      coverage_share: t.arg.float({ description: `energy_attribute_certificate only: ${SHARE}`, ...checkedBy(coverageShare) }),
      label: t.arg.string({ description: 'Your name for it; empty removes it', ...maxChars(INSTRUMENT_RULES.maxLabelLength) }),
    },
    resolve: (_root, { id, ...patch }, ctx) => updateInstrument(instrumentContext(ctx), String(id), patch),
  }),
  deleteContractualInstrument: t.field({
    type: ContractualInstrumentRef,
    description: 'Deletes a contractual instrument and answers it as it was. Audit event contractual_instrument.deleted.',
    authScopes: WRITE,
    extensions: { rest: { method: 'DELETE', path: '/inventory/instruments/:id', summary: 'Delete a contractual instrument', tags: TAGS } },
    args: { id: t.arg.id(idArg) },
    resolve: (_root, { id }, ctx) => deleteInstrument(instrumentContext(ctx), String(id)),
  }),
}));
