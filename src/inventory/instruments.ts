/**
 * Contractual instruments of an organisation for market-based Scope 2 (docs/inventory-market-based.md):
 * validation and the writes of the GraphQL mutations and their REST routes. Each write and its
 * audit-log row are one transaction through the caller's organisation-scoped client, serialised per
 * organisation by an advisory lock, so the overlap rule and the count limit hold under concurrent
 * requests (the check reads what no other write of the organisation can change until it commits).
 */
import * as z from 'zod';
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { advisoryLockKey, type Prisma, type PrismaClient } from '../db/database.ts';
import { ApiError, invalidFields, invalidParameter, notFound, type FieldProblem } from '../errors/api-error.ts';
import type { ContractualInstrumentKind } from '../generated/prisma/enums.ts';
import { checkRegionCode } from '../reference/region-check.ts';
import type { ReferenceStore } from '../reference/store.ts';
import { checkUuid } from '../validation/text.ts';

export type InstrumentRow = Prisma.ContractualInstrumentGetPayload<object>;

export const INSTRUMENT_RULES = {
  /** kg CO2e per kWh: above any grid's (the most carbon-intensive are about 1.1), so a typo in Wh or g is refused. */
  maxSupplierFactorKgPerKwh: 5,
  /** A supplier contract or a certificate vintage covers a year or a few; longer agreements are recorded year by year. */
  maxSpanDays: 3_653,
  firstDay: '2000-01-01',
  lastDay: '2100-12-31',
  maxLabelLength: 200,
  maxPerOrganisation: 1_000,
} as const;

export const INSTRUMENT_PAGE = { default: 50, max: 200 } as const;

export const INSTRUMENT_AUDIT_EVENTS = {
  created: 'contractual_instrument.created',
  updated: 'contractual_instrument.updated',
  deleted: 'contractual_instrument.deleted',
} as const;

/** Shares add up in floating point (0.1 + 0.2 + 0.7): a sum this close to 1 is 1. */
const SHARE_TOLERANCE = 1e-9;

const between = (what: string) => (issue: { input?: unknown }) => `${what}, got ${String(issue.input)}`;
export const supplierFactor = z
  .number()
  .min(0, { error: between(`must be from 0 to ${INSTRUMENT_RULES.maxSupplierFactorKgPerKwh} kg CO2e per kWh`) })
  .max(INSTRUMENT_RULES.maxSupplierFactorKgPerKwh, {
    error: between(`must be from 0 to ${INSTRUMENT_RULES.maxSupplierFactorKgPerKwh} kg CO2e per kWh`),
  });
export const coverageShare = z
  .number()
  .gt(0, { error: between('must be more than 0 and at most 1 (a share of the consumption)') })
  .max(1, { error: between('must be more than 0 and at most 1 (a share of the consumption)') });

export interface InstrumentFields {
  kind: ContractualInstrumentKind;
  country: string;
  valid_from: Date;
  valid_to: Date;
  emission_factor_kg_per_kwh: number | null;
  coverage_share: number | null;
  label: string | null;
}

export type InstrumentInput = Omit<InstrumentFields, 'emission_factor_kg_per_kwh' | 'coverage_share' | 'label'> & {
  emission_factor_kg_per_kwh?: number | null;
  coverage_share?: number | null;
  label?: string | null;
};

/** What an update may change; absent or null keeps the value, an empty label removes it, nothing given changes nothing. The kind is fixed: delete and create to change it. */
export type InstrumentPatch = { [Field in Exclude<keyof InstrumentFields, 'kind'>]?: InstrumentFields[Field] | null };

export interface InstrumentContext {
  /** The caller's organisation-scoped client (the read-only demo sandbox refuses writes before this). */
  prisma: PrismaClient;
  caller: KeyCaller;
  reference: Pick<ReferenceStore, 'gridFactor'>;
}

const DAY_MS = 86_400_000;
const day = (date: Date) => date.toISOString().slice(0, 10);
const dayNumber = (date: Date) => Math.floor(date.getTime() / DAY_MS);
const FIRST = new Date(`${INSTRUMENT_RULES.firstDay}T00:00:00Z`);
const LAST = new Date(`${INSTRUMENT_RULES.lastDay}T00:00:00Z`);

/** A label as stored: trimmed, empty as none (its length and characters are checked with the argument: maxChars). */
const labelOf = (label: string | null | undefined): string | null => label?.trim() || null;

/** Every problem of a whole instrument (after a patch is applied), each naming its field; one 400 for all. */
function instrumentProblems(fields: InstrumentFields): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { kind, valid_from, valid_to } = fields;
  for (const field of ['valid_from', 'valid_to'] as const) {
    const date = fields[field];
    if (date < FIRST || date > LAST)
      problems.push({ field, reason: `must be from ${INSTRUMENT_RULES.firstDay} to ${INSTRUMENT_RULES.lastDay}, got ${day(date)}` });
  }
  if (valid_to < valid_from) {
    problems.push({ field: 'valid_to', reason: `must be on or after valid_from (${day(valid_from)}), got ${day(valid_to)}` });
  } else if (dayNumber(valid_to) - dayNumber(valid_from) + 1 > INSTRUMENT_RULES.maxSpanDays) {
    problems.push({
      field: 'valid_to',
      reason: `an instrument covers at most ${INSTRUMENT_RULES.maxSpanDays} days (ten years), got ${dayNumber(valid_to) - dayNumber(valid_from) + 1}; record a longer agreement year by year`,
    });
  }
  if (kind === 'supplier_specific') {
    if (fields.emission_factor_kg_per_kwh === null)
      problems.push({ field: 'emission_factor_kg_per_kwh', reason: 'is required for a supplier_specific instrument (kg CO2e per kWh)' });
    if (fields.coverage_share !== null)
      problems.push({
        field: 'coverage_share',
        reason: 'is for energy_attribute_certificate instruments only; leave it out for supplier_specific',
      });
  } else {
    if (fields.coverage_share === null)
      problems.push({
        field: 'coverage_share',
        reason: 'is required for an energy_attribute_certificate instrument (the share of the consumption covered)',
      });
    if (fields.emission_factor_kg_per_kwh !== null)
      problems.push({
        field: 'emission_factor_kg_per_kwh',
        reason: 'is for supplier_specific instruments only; certificates count at zero emissions for the share they cover',
      });
  }
  return problems;
}

function checkInstrument(fields: InstrumentFields): InstrumentFields {
  const problems = instrumentProblems(fields);
  if (problems.length > 0) throw invalidFields(problems);
  return fields;
}

function instrumentId(id: string): string {
  checkUuid('id', id);
  return id.toLowerCase();
}

const instrumentNotFound = (id: string) => notFound('Contractual instrument', `id: no contractual instrument ${id} in this organisation`);

/** Concurrent writes of one organisation's instruments queue here until the first commits. */
const lockInstruments = (tx: Prisma.TransactionClient, orgId: string) =>
  tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${advisoryLockKey(`contractual-instruments:${orgId}`)}::bigint)`;

const overlap = (details: string) => new ApiError(409, 'CONTRACTUAL_INSTRUMENT_OVERLAP', 'Overlapping contractual instruments', details);

/**
 * The overlap rule: one supplier-specific factor per country and day (two would each claim the same
 * kWh), and certificates of one country covering at most 100 % of any day's consumption.
 */
async function checkOverlap(tx: Prisma.TransactionClient, fields: InstrumentFields, exceptId?: string): Promise<void> {
  const others = await tx.contractualInstrument.findMany({
    where: {
      kind: fields.kind,
      country: fields.country,
      valid_from: { lte: fields.valid_to },
      valid_to: { gte: fields.valid_from },
      ...(exceptId ? { id: { not: exceptId } } : {}),
    },
    orderBy: [{ valid_from: 'asc' }, { id: 'asc' }],
  });
  if (others.length === 0) return;
  if (fields.kind === 'supplier_specific') {
    const [first] = others;
    throw overlap(
      `valid_from: a supplier-specific factor for ${fields.country} already applies from ${day(first!.valid_from)} to ${day(first!.valid_to)} ` +
        `(instrument ${first!.id}); one supplier-specific factor per country and day`,
    );
  }
  // The most covered day lies where one of the instruments begins inside the new one's days.
  const starts = [fields.valid_from, ...others.map((o) => o.valid_from)].filter((d) => d >= fields.valid_from && d <= fields.valid_to);
  let worst = { day: fields.valid_from, share: 0, ids: [] as string[] };
  for (const start of starts) {
    const covering = others.filter((o) => o.valid_from <= start && o.valid_to >= start);
    const share = covering.reduce((sum, o) => sum + (o.coverage_share ?? 0), 0);
    if (share > worst.share) worst = { day: start, share, ids: covering.map((o) => o.id) };
  }
  const total = worst.share + (fields.coverage_share ?? 0);
  if (total > 1 + SHARE_TOLERANCE) {
    const percent = (share: number) => `${Math.round(share * 1e4) / 100} %`;
    throw overlap(
      `coverage_share: certificates for ${fields.country} would cover ${percent(total)} of the consumption on ${day(worst.day)}: ` +
        `${percent(worst.share)} is already covered by instrument${worst.ids.length > 1 ? 's' : ''} ${worst.ids.join(', ')}; ` +
        'certificates of one country may cover at most 100 % of any day',
    );
  }
}

/** The instrument's fields as the audit log keeps them (dates as days). */
const auditFields = (fields: Partial<InstrumentFields>) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, value instanceof Date ? day(value) : value]),
  ) as Prisma.InputJsonObject;

export async function createInstrument(ctx: InstrumentContext, input: InstrumentInput): Promise<InstrumentRow> {
  const { prisma, caller } = ctx;
  const fields = checkInstrument({
    kind: input.kind,
    country: checkRegionCode(ctx.reference, input.country, 'country'),
    valid_from: input.valid_from,
    valid_to: input.valid_to,
    emission_factor_kg_per_kwh: input.emission_factor_kg_per_kwh ?? null,
    coverage_share: input.coverage_share ?? null,
    label: labelOf(input.label),
  });
  return prisma.$transaction(async (tx) => {
    await lockInstruments(tx, caller.orgId);
    if ((await tx.contractualInstrument.count()) >= INSTRUMENT_RULES.maxPerOrganisation) {
      throw new ApiError(
        409,
        'CONTRACTUAL_INSTRUMENT_LIMIT',
        'Too many contractual instruments',
        `An organisation has at most ${INSTRUMENT_RULES.maxPerOrganisation} contractual instruments; delete one first`,
      );
    }
    await checkOverlap(tx, fields);
    const instrument = await tx.contractualInstrument.create({ data: { ...fields, org_id: caller.orgId } });
    await tx.auditLog.create({
      data: auditEntry(caller, INSTRUMENT_AUDIT_EVENTS.created, { type: 'contractual_instrument', id: instrument.id }, auditFields(fields)),
    });
    return instrument;
  });
}

export async function updateInstrument(ctx: InstrumentContext, id: string, patch: InstrumentPatch): Promise<InstrumentRow> {
  const { prisma, caller } = ctx;
  const instrumentIdValue = instrumentId(id);
  // Checked before the lookup: what the patch says on its own.
  const given: Partial<InstrumentFields> = Object.fromEntries(
    Object.entries(patch).filter(([, value]) => value !== undefined && value !== null),
  );
  if (given.country !== undefined) given.country = checkRegionCode(ctx.reference, given.country, 'country');
  if (given.label !== undefined) given.label = labelOf(given.label);
  return prisma.$transaction(async (tx) => {
    await lockInstruments(tx, caller.orgId);
    const current = await tx.contractualInstrument.findFirst({ where: { id: instrumentIdValue } });
    if (!current) throw instrumentNotFound(instrumentIdValue);
    // Nothing to change: answered as it is, neither written nor logged.
    if (Object.keys(given).length === 0) return current;
    const { kind, country, valid_from, valid_to, emission_factor_kg_per_kwh, coverage_share, label } = current;
    const fields = checkInstrument({ kind, country, valid_from, valid_to, emission_factor_kg_per_kwh, coverage_share, label, ...given });
    await checkOverlap(tx, fields, instrumentIdValue);
    const instrument = await tx.contractualInstrument.update({ where: { id: instrumentIdValue }, data: fields });
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        INSTRUMENT_AUDIT_EVENTS.updated,
        { type: 'contractual_instrument', id: instrumentIdValue },
        { changed: auditFields(given) },
      ),
    });
    return instrument;
  });
}

/** Deletes an instrument and answers it as it was; of two concurrent deletions one answers 404. */
export async function deleteInstrument(ctx: InstrumentContext, id: string): Promise<InstrumentRow> {
  const { prisma, caller } = ctx;
  const instrumentIdValue = instrumentId(id);
  return prisma.$transaction(async (tx) => {
    await lockInstruments(tx, caller.orgId);
    const current = await tx.contractualInstrument.findFirst({ where: { id: instrumentIdValue } });
    if (!current) throw instrumentNotFound(instrumentIdValue);
    await tx.contractualInstrument.deleteMany({ where: { id: instrumentIdValue } });
    const { kind, country, valid_from, valid_to, emission_factor_kg_per_kwh, coverage_share, label } = current;
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        INSTRUMENT_AUDIT_EVENTS.deleted,
        { type: 'contractual_instrument', id: instrumentIdValue },
        auditFields({ kind, country, valid_from, valid_to, emission_factor_kg_per_kwh, coverage_share, label }),
      ),
    });
    return current;
  });
}

/** One instrument of the caller's organisation; null alike for an unknown id and another organisation's. */
export function findInstrument(prisma: PrismaClient, id: string): Promise<InstrumentRow | null> {
  return prisma.contractualInstrument.findFirst({ where: { id: instrumentId(id) } });
}

export interface InstrumentPage {
  total: number;
  limit: number;
  offset: number;
  instruments: InstrumentRow[];
}

export async function listInstruments(
  ctx: Pick<InstrumentContext, 'prisma' | 'reference'>,
  filter: { kind?: ContractualInstrumentKind | null; country?: string | null; limit?: number | null; offset?: number | null },
): Promise<InstrumentPage> {
  const limit = filter.limit ?? INSTRUMENT_PAGE.default;
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > INSTRUMENT_PAGE.max)
    throw invalidParameter('limit', `must be an integer from 1 to ${INSTRUMENT_PAGE.max}, got ${limit}`);
  if (!Number.isInteger(offset) || offset < 0) throw invalidParameter('offset', `must be an integer of at least 0, got ${offset}`);
  const where: Prisma.ContractualInstrumentWhereInput = {};
  if (filter.kind != null) where.kind = filter.kind;
  if (filter.country != null) where.country = checkRegionCode(ctx.reference, filter.country, 'country');
  const [total, instruments] = await Promise.all([
    ctx.prisma.contractualInstrument.count({ where }),
    ctx.prisma.contractualInstrument.findMany({
      where,
      orderBy: [{ country: 'asc' }, { valid_from: 'asc' }, { kind: 'asc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
    }),
  ]);
  return { total, limit, offset, instruments };
}
