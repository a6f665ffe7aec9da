import type { PrismaClient } from '../db/database.ts';
import { generateApiKey, type KeyEnvironment } from './api-keys.ts';
import type { KeyStore } from './caller.ts';

export interface IssueKeyOptions {
  environment: KeyEnvironment;
  bi_enabled?: boolean;
  org_context?: boolean;
  name?: string;
}

/** Creates a key for an organisation (at its plan). The clear key is returned here and nowhere else. */
export async function issueApiKey(prisma: PrismaClient, orgId: string, options: IssueKeyOptions) {
  const org = await prisma.organization.findUnique({ where: { id: orgId }, select: { plan: true } });
  if (!org) return undefined;
  const { key, hash, prefix } = generateApiKey(options.environment);
  const row = await prisma.apiKey.create({
    data: {
      org_id: orgId,
      key: hash,
      prefix,
      plan: org.plan,
      environment: options.environment,
      bi_enabled: options.bi_enabled ?? false,
      org_context: options.org_context ?? true,
      name: options.name,
    },
    select: { id: true, org_id: true, plan: true, environment: true, bi_enabled: true, org_context: true },
  });
  return { ...row, key, prefix };
}

/** Revokes a key (of `orgId` when given); revoking twice keeps the first time. Undefined when there is no such key. */
export async function revokeApiKey(prisma: PrismaClient, keys: KeyStore, keyId: string, orgId?: string) {
  await prisma.apiKey.updateMany({
    where: { id: keyId, revoked_at: null, ...(orgId ? { org_id: orgId } : {}) },
    data: { revoked_at: new Date() },
  });
  const key = await prisma.apiKey.findFirst({
    where: { id: keyId, ...(orgId ? { org_id: orgId } : {}) },
    select: { id: true, revoked_at: true },
  });
  if (key) keys.forget(keyId);
  return key ?? undefined;
}
