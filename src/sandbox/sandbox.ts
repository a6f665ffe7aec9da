import type { PrismaClient } from '../db/database.ts';
import { seedDemo, type SeedDemoOptions } from '../assets/seed-demo.ts';

/**
 * GraphQL with a svc_test_ key reads this generated demo organisation instead of the key's own
 * (spec 5.1: test keys return sandbox data): same schema, deterministic rows, never real ones.
 */
export const SANDBOX_ORG_ID = '5a4db0c5-0000-4000-8000-000000000001';
export const SANDBOX_ORG_NAME = 'Sandbox demo organisation';

const SANDBOX_ASSETS = 120;
const SANDBOX_SEED = 20_261_122;

/** Creates the sandbox organisation and its demo inventory once (same seed: the same estate everywhere). */
export async function ensureSandboxOrganization(prisma: PrismaClient, services: SeedDemoOptions['services']): Promise<void> {
  await prisma.organization.upsert({
    where: { id: SANDBOX_ORG_ID },
    create: { id: SANDBOX_ORG_ID, name: SANDBOX_ORG_NAME, plan: 'enterprise' },
    update: {},
  });
  if ((await prisma.asset.count({ where: { org_id: SANDBOX_ORG_ID } })) === 0) {
    await seedDemo(prisma, SANDBOX_ORG_ID, SANDBOX_ASSETS, () => {}, { seed: SANDBOX_SEED, services });
  }
}
