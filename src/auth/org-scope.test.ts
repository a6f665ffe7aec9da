import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors/api-error.ts';
import { ORG_OWNED_MODELS, scopeToOrganization } from './org-scope.ts';
import { EXPORT_TABLES } from '../exports/tables.ts';

let db: Database;
let orgA: string;
let orgB: string;
let assetB: string;

beforeAll(async () => {
  db = await openTestDatabase();
  orgA = (await db.prisma.organization.create({ data: { name: 'A' } })).id;
  orgB = (await db.prisma.organization.create({ data: { name: 'B' } })).id;
  await db.prisma.asset.create({ data: { org_id: orgA, brand: 'Dell', category: 'laptop', country: 'DE', serial_number: 'A-1' } });
  assetB = (await db.prisma.asset.create({ data: { org_id: orgB, brand: 'HP', category: 'laptop', country: 'FR', serial_number: 'B-1' } }))
    .id;
});
afterAll(() => db.close());

describe('scopeToOrganization', () => {
  it("knows the organisation-owned tables: those of the export (the spec's 22 and contractual_instruments)", () => {
    expect(ORG_OWNED_MODELS.size).toBe(EXPORT_TABLES.length);
    expect(ORG_OWNED_MODELS.size).toBe(23);
    expect(ORG_OWNED_MODELS.has('ContractualInstrument')).toBe(true);
    expect(ORG_OWNED_MODELS.has('Asset')).toBe(true);
    expect(ORG_OWNED_MODELS.has('Product')).toBe(false);
    expect(ORG_OWNED_MODELS.has('EmissionFactor')).toBe(false);
  });

  it('confines reads, counts and aggregates to the organisation', async () => {
    const a = scopeToOrganization(db.prisma, orgA);
    expect((await a.asset.findMany()).map((x) => x.serial_number)).toEqual(['A-1']);
    expect(await a.asset.findUnique({ where: { id: assetB } })).toBeNull();
    expect(await a.asset.findFirst({ where: { org_id: orgB } })).toBeNull();
    expect(await a.asset.count()).toBe(1);
    expect((await a.organization.findMany()).map((o) => o.name)).toEqual(['A']);
    expect(await a.organization.findUnique({ where: { id: orgB } })).toBeNull();
  });

  it('cannot change or delete another organisation’s rows, and creates only in its own', async () => {
    const a = scopeToOrganization(db.prisma, orgA);
    expect((await a.asset.updateMany({ where: { id: assetB }, data: { brand: 'Hacked' } })).count).toBe(0);
    await expect(a.asset.update({ where: { id: assetB }, data: { brand: 'Hacked' } })).rejects.toThrow();
    expect((await a.asset.deleteMany({ where: { id: assetB } })).count).toBe(0);
    const created = await a.asset.create({ data: { org_id: orgB, brand: 'X', category: 'laptop', country: 'DE' } });
    expect(created.org_id).toBe(orgA);
    expect((await db.prisma.asset.findUniqueOrThrow({ where: { id: assetB } })).brand).toBe('HP');
  });

  it('refuses organisation data without organisation context, and passes global data through', async () => {
    const none = scopeToOrganization(db.prisma, null);
    await expect(none.asset.findMany()).rejects.toBeInstanceOf(ApiError);
    await expect(none.asset.findMany()).rejects.toMatchObject({ status: 403, code: 'NO_ORGANIZATION_CONTEXT' });
    expect(await none.deviceCategory.count()).toBe(48);
  });

  it('a read-only scope reads its organisation and refuses every write and raw statement with SANDBOX_READ_ONLY', async () => {
    const a = scopeToOrganization(db.prisma, orgA, { readOnly: true });
    expect(await a.asset.count()).toBe(2);
    const refused = { status: 403, code: 'SANDBOX_READ_ONLY' };
    await expect(a.asset.create({ data: { org_id: orgA, brand: 'X', category: 'laptop', country: 'DE' } })).rejects.toMatchObject(refused);
    await expect(a.asset.updateMany({ data: { brand: 'Changed' } })).rejects.toMatchObject(refused);
    await expect(a.asset.deleteMany()).rejects.toMatchObject(refused);
    await expect(a.$executeRawUnsafe('SELECT 1')).rejects.toMatchObject(refused);
    await expect(a.$queryRaw`SELECT 1`).rejects.toMatchObject(refused);
    await expect(
      a.$transaction([a.scenarioRun.create({ data: { org_id: orgA, kind: 'x', asset_ids: [], result: {} } })]),
    ).rejects.toMatchObject(refused);
    expect(await db.prisma.asset.count({ where: { org_id: orgA } })).toBe(2);
  });
});
