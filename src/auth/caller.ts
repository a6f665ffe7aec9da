import type { Plan } from '../generated/prisma/enums.ts';
import type { PrismaClient } from '../db/database.ts';
import { unauthorized } from '../errors/api-error.ts';
import { KEY_PATTERN, hashApiKey, type KeyEnvironment } from './api-keys.ts';
import type { KeyUsage } from './key-usage.ts';

export type { Plan };

export type Caller =
  | { kind: 'anonymous'; ip: string; plan: 'free' }
  | {
      kind: 'key';
      ip: string;
      keyId: string;
      /**
       * The organisation whose data this caller reads and writes: the key's own for svc_live_ keys;
       * for svc_test_ keys its organisation's sandbox, or without organisation context the shared
       * demo sandbox, read-only (src/sandbox/sandbox.ts). Never a real organisation for a test key.
       */
      orgId: string;
      /** The organisation the key belongs to: its usage is counted there. */
      keyOrgId: string;
      plan: Plan;
      environment: KeyEnvironment;
      biEnabled: boolean;
      /** False for keys issued without organisation context: they may not act on organisation data. */
      orgContext: boolean;
      /** True for the demo sandbox of test keys without organisation context: readable, writes refused (SANDBOX_READ_ONLY). */
      readOnly: boolean;
    };

export type KeyCaller = Extract<Caller, { kind: 'key' }>;

/** A caller without a key: counted by its address at the free plan's limits, on open routes only. */
export const anonymousCaller = (ip: string): Caller => ({ kind: 'anonymous', ip, plan: 'free' });

interface CachedKey {
  caller: Omit<KeyCaller, 'ip'> | null;
  revoked: boolean;
  expiresAt: number;
}

/** A key's caller (but its address), acting for `orgId`: the key's organisation, or for a test key its sandbox (KeyStore.resolve). */
export function keyCallerOf(
  key: { id: string; org_id: string; plan: Plan; environment: string; bi_enabled: boolean; org_context: boolean },
  orgId: string,
): Omit<KeyCaller, 'ip'> {
  return {
    kind: 'key',
    keyId: key.id,
    orgId,
    keyOrgId: key.org_id,
    plan: key.plan,
    environment: key.environment as KeyEnvironment,
    biEnabled: key.bi_enabled,
    orgContext: key.org_context,
    readOnly: key.environment === 'test' && !key.org_context,
  };
}

/**
 * How long this process trusts what it looked up about a key (found, revoked or unknown): the bound within
 * which a revocation through another instance takes effect (docs/api.md, "Organisations and API keys").
 * A key is looked up once per bound, not per request. An unknown key's answer is kept no longer: a key
 * created since is new random bytes no one has looked up, so it works at once on every instance.
 */
export const KEY_CACHE_TTL_MS = 1_000;

/**
 * Resolves API keys by their hash, with a short in-process cache so the hot path does not
 * query the database on every request. Revocation through this instance takes effect at once
 * (revokeApiKey forgets the key); through another instance within `ttlMs`.
 */
export class KeyStore {
  private readonly cache = new Map<string, CachedKey>();

  constructor(
    private readonly prisma: PrismaClient,
    /** The sandbox organisation of a test key's organisation (null: the demo sandbox), ready to use. */
    private readonly sandboxOf: (orgId: string | null) => Promise<string>,
    /** Where an accepted key's use is noted (`last_used_at`); none in tests that do not look. */
    readonly usage?: KeyUsage,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  async resolve(key: string): Promise<CachedKey> {
    const hash = hashApiKey(key);
    const hit = this.cache.get(hash);
    if (hit && hit.expiresAt > Date.now()) return hit;
    const row = await this.prisma.apiKey.findUnique({
      where: { key: hash },
      select: { id: true, org_id: true, plan: true, environment: true, bi_enabled: true, org_context: true, revoked_at: true },
    });
    const test = row?.environment === 'test';
    // The one place a key's data scope is chosen: every interface takes the organisation from here.
    const orgId = row && (test ? await this.sandboxOf(row.org_context ? row.org_id : null) : row.org_id);
    const entry: CachedKey = {
      caller: row && keyCallerOf(row, orgId!),
      revoked: row?.revoked_at != null,
      expiresAt: Date.now() + this.ttlMs,
    };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, entry);
    return entry;
  }

  forget(keyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.caller?.keyId === keyId) this.cache.delete(hash);
  }
}

/**
 * Who is calling. No Authorization header: anonymous (open routes only). A header that is
 * present must carry a valid, unrevoked key, on every route: a bad key is never silently anonymous.
 */
export async function authenticate(authorization: string | null, ip: string, keys: KeyStore): Promise<Caller> {
  if (authorization === null || authorization.trim() === '') return anonymousCaller(ip);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('INVALID_AUTHORIZATION', 'Authorization header must be "Bearer <API key>"');
  const key = match[1]!;
  if (!KEY_PATTERN.test(key)) throw unauthorized('INVALID_API_KEY', 'API key is malformed: expected svc_live_… or svc_test_…');
  const entry = await keys.resolve(key);
  if (!entry.caller) throw unauthorized('INVALID_API_KEY', 'API key is not known');
  if (entry.revoked) throw unauthorized('API_KEY_REVOKED', 'API key has been revoked');
  keys.usage?.note(entry.caller.keyId);
  return { ...entry.caller, ip };
}
