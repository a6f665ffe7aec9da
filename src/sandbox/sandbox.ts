import { v5 as uuidv5 } from 'uuid';
import { withSession, type Database } from '../db/database.ts';
import { withAdvisoryLock } from '../db/migrate.ts';
import { ACTIVE_FIGURE_COLUMNS, seedDemo, type SeedDemoOptions } from '../assets/seed-demo.ts';
import { insertCalculationFactors, insertCalculations } from '../footprint/calculation-writer.ts';

/**
 * svc_test_ keys never reach real data (spec 5.1: test keys return sandbox data). A test key of an
 * organisation reads and writes that organisation's own sandbox: a separate organisation row with
 * an id derived from the parent's (UUID v5), given a copy of the demo estate on first use. A test
 * key without organisation context reads the shared demo sandbox below, read-only.
 */
export const SANDBOX_ORG_ID = '5a4db0c5-0000-4000-8000-000000000001';
export const SANDBOX_ORG_NAME = 'Sandbox demo organisation';

/** UUID v5 namespace of sandbox organisation ids (fixed: the same parent always has the same sandbox). */
const SANDBOX_NAMESPACE = '0b6c3a4e-5d1f-4f7a-9b2e-8c4d6e0f1a23';
const SANDBOX_ASSETS = 120;
const SANDBOX_SEED = 20_261_122;

/** The id of the sandbox organisation of `orgId`. */
export const sandboxOrgId = (orgId: string): string => uuidv5(orgId.toLowerCase(), SANDBOX_NAMESPACE);

/**
 * Copies the demo estate ($1) into a sandbox ($2) in one statement, with new ids: milliseconds where
 * calculating it again (seedDemo) takes seconds, and the same estate in every sandbox.
 */
const COPY_DEMO_ESTATE = `
WITH src AS MATERIALIZED (
  SELECT a.*, gen_random_uuid() AS new_asset_id, gen_random_uuid() AS new_calc_id
  FROM assets a WHERE a.org_id = $1::uuid AND a.source = 'seed-demo' AND a.active_calculation_id IS NOT NULL
),
a AS (
  INSERT INTO assets (id, org_id, brand, mpn, model, serial_number, category, status, purchase_date, country, specs, product_id,
    active_calculation_id, total_kg_co2e, production_kg, use_phase_kg, ${ACTIVE_FIGURE_COLUMNS.join(', ')}, source, created_at, updated_at)
  SELECT new_asset_id, $2::uuid, brand, mpn, model, serial_number, category, status, purchase_date, country, specs, product_id,
    new_calc_id, total_kg_co2e, production_kg, use_phase_kg, ${ACTIVE_FIGURE_COLUMNS.map((c) => (c === 'calculated_at' ? 'now()' : c)).join(', ')}, source, now(), now()
  FROM src
  RETURNING 1
),
k AS (
  ${insertCalculations('src JOIN calculations c ON c.id = src.active_calculation_id', 'c', {
    id: 'src.new_calc_id',
    org_id: '$2::uuid',
    asset_id: 'src.new_asset_id',
    api_key_id: 'NULL',
    result: "c.result || jsonb_build_object('calculation_id', src.new_calc_id)",
    created_at: 'now()',
  })}
),
f AS (
  ${insertCalculationFactors('SELECT src.new_calc_id, cf.factor_id, cf.role, $2::uuid FROM src JOIN calculation_factors cf ON cf.calculation_id = src.active_calculation_id')}
)
SELECT (SELECT count(*) FROM a)::int AS assets`;

/** A bigint advisory-lock key per sandbox: 60 bits of its id. */
const lockKey = (id: string) => BigInt(`0x${id.replaceAll('-', '').slice(0, 15)}`).toString();

/** Creates sandbox organisations on first use, once per process and, through the database, once overall. */
export class Sandboxes {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly services: NonNullable<SeedDemoOptions['services']>,
  ) {}

  /** The sandbox organisation of `orgId` (null: the shared demo sandbox), created and seeded if it is not yet. */
  async ensure(orgId: string | null): Promise<string> {
    const id = orgId === null ? SANDBOX_ORG_ID : sandboxOrgId(orgId);
    let ready = this.ready.get(id);
    if (!ready) {
      if (this.ready.size >= 10_000) this.ready.clear();
      ready = this.create(id, orgId).catch((error: unknown) => {
        this.ready.delete(id);
        throw error;
      });
      this.ready.set(id, ready);
    }
    await ready;
    return id;
  }

  // Under an advisory lock of this sandbox: another instance's first request waits here and then
  // finds the estate in place. The estate is written by one statement, so it is either all there or
  // absent; assets are never deleted, so an empty sandbox is one that was never filled.
  private async create(id: string, parentId: string | null): Promise<void> {
    const prisma = this.db.prisma;
    if (parentId !== null) await this.ensure(null);
    await withSession(this.db, (session) =>
      withAdvisoryLock(session, lockKey(id), async () => {
        const parent =
          parentId === null ? null : await prisma.organization.findUnique({ where: { id: parentId }, select: { name: true, plan: true } });
        if (parentId !== null && !parent) throw new Error(`sandbox: no organization ${parentId}`);
        const name = parent ? `Sandbox of ${parent.name}` : SANDBOX_ORG_NAME;
        const plan = parent?.plan ?? 'enterprise';
        await prisma.organization.upsert({ where: { id }, create: { id, name, plan }, update: { plan } });
        if ((await prisma.asset.count({ where: { org_id: id } })) > 0) return;
        if (parentId === null) await seedDemo(prisma, id, SANDBOX_ASSETS, () => {}, { seed: SANDBOX_SEED, services: this.services });
        else await prisma.$queryRawUnsafe(COPY_DEMO_ESTATE, SANDBOX_ORG_ID, id);
      }),
    );
  }
}
