/**
 * SBTi targets of an organisation: validation and the writes of the GraphQL mutations (business and
 * enterprise plans). Each write and its audit-log row are one transaction, through the caller's
 * organisation-scoped client.
 */
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import type { PrismaClient } from '../db/database.ts';
import { ApiError, invalidParameter, notFound } from '../errors/api-error.ts';
import { isSbtiScope, SBTI_SCOPES, type SbtiScope } from './progress.ts';

export const SBTI_STATUSES = ['committed', 'validated', 'achieved', 'withdrawn'] as const;
export type SbtiStatus = (typeof SBTI_STATUSES)[number];

/** SBTi accepts base years from 2015 on; targets reach at most 2050 (net zero). */
export const SBTI_RULES = {
  firstBaseYear: 2015,
  lastTargetYear: 2050,
  maxBaseKg: 1e12,
  maxTargetsPerOrganisation: 100,
  maxNameLength: 200,
} as const;

export const SBTI_AUDIT_EVENTS = {
  created: 'sbti.target.created',
  updated: 'sbti.target.updated',
  deleted: 'sbti.target.deleted',
} as const;

export interface SbtiTargetFields {
  name: string;
  scope: SbtiScope;
  base_year: number;
  base_year_kg_co2e: number;
  target_year: number;
  reduction_pct: number;
  status: SbtiStatus;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks a whole target (after a patch is applied); `prefix` names the argument in errors (input, patch). */
export function checkTarget(fields: SbtiTargetFields, prefix: string, now = new Date()): SbtiTargetFields {
  const fail = (field: keyof SbtiTargetFields, reason: string) => invalidParameter(`${prefix}.${field}`, reason);
  const name = fields.name.trim();
  if (name === '') throw fail('name', 'must not be empty');
  if (!isSbtiScope(fields.scope)) throw fail('scope', `must be one of ${Object.keys(SBTI_SCOPES).join(', ')}`);
  const currentYear = now.getUTCFullYear();
  if (!Number.isInteger(fields.base_year) || fields.base_year < SBTI_RULES.firstBaseYear || fields.base_year > currentYear) {
    throw fail('base_year', `must be a year from ${SBTI_RULES.firstBaseYear} to ${currentYear}, got ${fields.base_year}`);
  }
  if (!Number.isInteger(fields.target_year) || fields.target_year <= fields.base_year || fields.target_year > SBTI_RULES.lastTargetYear) {
    throw fail(
      'target_year',
      `must be a year after base_year (${fields.base_year}) and at most ${SBTI_RULES.lastTargetYear}, got ${fields.target_year}`,
    );
  }
  if (!(fields.reduction_pct > 0 && fields.reduction_pct <= 100))
    throw fail('reduction_pct', `must be more than 0 and at most 100 (percent), got ${fields.reduction_pct}`);
  if (!(fields.base_year_kg_co2e > 0 && fields.base_year_kg_co2e <= SBTI_RULES.maxBaseKg)) {
    throw fail('base_year_kg_co2e', `must be more than 0 and at most ${SBTI_RULES.maxBaseKg} kg, got ${fields.base_year_kg_co2e}`);
  }
  if (!SBTI_STATUSES.includes(fields.status)) throw fail('status', `must be one of ${SBTI_STATUSES.join(', ')}`);
  return { ...fields, name };
}

function targetId(id: string): string {
  if (!UUID.test(id)) throw invalidParameter('id', `must be an SBTi target id (UUID), got '${id.slice(0, 40)}'`);
  return id.toLowerCase();
}

export async function createTarget(prisma: PrismaClient, caller: KeyCaller, input: SbtiTargetFields) {
  const fields = checkTarget(input, 'input');
  return prisma.$transaction(async (tx) => {
    // Concurrent creations of one organisation queue here, so the count below cannot be overtaken.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`sbti_targets:${caller.orgId}`}, 0))`;
    if ((await tx.sbtiTarget.count()) >= SBTI_RULES.maxTargetsPerOrganisation) {
      throw new ApiError(
        409,
        'TOO_MANY_SBTI_TARGETS',
        'Too many SBTi targets',
        `An organisation has at most ${SBTI_RULES.maxTargetsPerOrganisation} SBTi targets; delete one first`,
      );
    }
    const target = await tx.sbtiTarget.create({ data: { ...fields, org_id: caller.orgId } });
    await tx.auditLog.create({
      data: auditEntry(caller, SBTI_AUDIT_EVENTS.created, { type: 'sbti_target', id: target.id }, { ...fields }),
    });
    return target;
  });
}

export async function updateTarget(prisma: PrismaClient, caller: KeyCaller, id: string, patch: Partial<SbtiTargetFields>) {
  const targetIdValue = targetId(id);
  return prisma.$transaction(async (tx) => {
    const current = await tx.sbtiTarget.findFirst({ where: { id: targetIdValue } });
    if (!current) throw notFound('SBTi target', `no SBTi target with id ${targetIdValue}`);
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined && v !== null));
    const { name, scope, base_year, base_year_kg_co2e, target_year, reduction_pct, status } = current;
    const fields = checkTarget(
      { ...({ name, scope, base_year, base_year_kg_co2e, target_year, reduction_pct, status } as SbtiTargetFields), ...defined },
      'patch',
    );
    const target = await tx.sbtiTarget.update({ where: { id: targetIdValue }, data: fields });
    await tx.auditLog.create({
      data: auditEntry(caller, SBTI_AUDIT_EVENTS.updated, { type: 'sbti_target', id: target.id }, { changed: defined }),
    });
    return target;
  });
}

export async function deleteTarget(prisma: PrismaClient, caller: KeyCaller, id: string): Promise<string> {
  const targetIdValue = targetId(id);
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.sbtiTarget.deleteMany({ where: { id: targetIdValue } });
    if (count === 0) throw notFound('SBTi target', `no SBTi target with id ${targetIdValue}`);
    await tx.auditLog.create({ data: auditEntry(caller, SBTI_AUDIT_EVENTS.deleted, { type: 'sbti_target', id: targetIdValue }, {}) });
    return targetIdValue;
  });
}
