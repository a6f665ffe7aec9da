import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { periodInventory } from '../../src/inventory/inventory.ts';

/**
 * An inventory statement that runs too long ends in PostgreSQL's statement_timeout and a 503
 * INVENTORY_TIMEOUT of the one error model, never in Prisma's expired transaction and a 500. A 1 ms limit
 * over 3 000 assets stands in for a 20 s one over millions. PGlite does not enforce statement_timeout
 * (WebAssembly has no timer signal): there the same call answers the inventory.
 */
let t: TestApp;
let orgId: string;
const YEAR_2025 = { dateFrom: '2025-01-01', dateTo: '2025-12-31', method: 'linear', restate: false } as const;

beforeAll(async () => {
  t = await createTestApp();
  orgId = (await t.createOrg('business', 'Inventory timeout')).id;
  await t.app.services.db.prisma.$executeRawUnsafe(
    `WITH calc AS (
      INSERT INTO calculations (id, org_id, kind, engine_version, country, category, confidence, total_kg_co2e, production_kg,
        transport_kg, use_phase_kg, end_of_life_kg, inputs, result, created_at)
      SELECT gen_random_uuid(), $1::uuid, 'footprint', 'test', 'DE', 'laptop', 'estimated_medium', 300, 200, 10, 80, 5, '{}'::jsonb,
        jsonb_build_object('methodology', jsonb_build_object('annual_kwh', 20 + g % 300, 'lifetime_years', 3 + g % 4, 'uncertainty_pct', 20)),
        timestamptz '2024-06-01'
      FROM generate_series(1, 3000) g
      RETURNING id, created_at
    )
    INSERT INTO assets (id, org_id, brand, category, status, purchase_date, country, active_calculation_id, total_kg_co2e, production_kg,
      use_phase_kg, source, created_at, updated_at)
    SELECT gen_random_uuid(), $1::uuid, 'Test', 'laptop', 'in_use', date '2018-01-01' + (row_number() OVER ())::int % 2920, 'DE', id,
      300, 200, 80, 'test', created_at, now()
    FROM calc`,
    orgId,
  );
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe(`inventory statement timeout on ${TEST_DATABASE_KIND}`, () => {
  it.runIf(TEST_DATABASE_KIND === 'postgres')('cancels a statement over its limit with 503 INVENTORY_TIMEOUT and Retry-After', async () => {
    const refused = await periodInventory(t.app.services.db.prisma, orgId, YEAR_2025, 1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    const error = refused as ApiError;
    expect(error.status).toBe(503);
    expect(error.code).toBe('INVENTORY_TIMEOUT');
    expect(error.headers['Retry-After']).toBe('30');
    expect(error.details).toContain('cancelled after 1 ms');
    // The transaction ended with the statement: the next inventory, within the limit, answers.
    const answered = await periodInventory(t.app.services.db.prisma, orgId, YEAR_2025);
    expect(answered.total.assets).toBe(3000);
  });

  it.runIf(TEST_DATABASE_KIND === 'pglite')('answers on PGlite, which accepts the limit and does not enforce it', async () => {
    const answered = await periodInventory(t.app.services.db.prisma, orgId, YEAR_2025, 1);
    expect(answered.total.assets).toBe(3000);
  });
});
