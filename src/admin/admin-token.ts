import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDirSecret } from '../config/data-secret.ts';
import { dataDirOf } from '../config/data-dir.ts';
import { RateLimitError, unauthorized } from '../errors/api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import type { Services } from '../services.ts';
import { nextMinuteBoundary, SIGN_IN_FAILURES_PER_MINUTE } from '../auth/quota/index.ts';

export const ADMIN_TOKEN_FILE = 'admin-token';

/**
 * ADMIN_TOKEN when set; otherwise the token kept in the data directory, generated on first
 * start with 0600 rights. The CLI reads it the same way (readAdminToken).
 */
export async function resolveAdminToken(configured: string | undefined, dataDir: string): Promise<string> {
  return configured ?? dataDirSecret(dataDir, ADMIN_TOKEN_FILE, () => randomBytes(32).toString('base64url'));
}

export function adminTokenMatches(expected: string, presented: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(presented));
}

/**
 * The guard of the operator routes (admin API, /metrics): throws 401 unless the request carries
 * Authorization: Bearer <admin token>. Brute-force guard: a client IP's failed attempts are limited
 * per minute, asked before the token is compared; a request with the right token costs nothing.
 */
export async function requireAdminToken(services: Pick<Services, 'adminToken' | 'quota'>, request: Request): Promise<void> {
  const ip = currentRequest()?.ip ?? 'unknown';
  const wait = await services.quota.signInWait('admin', ip);
  if (wait !== undefined) {
    throw new RateLimitError(
      'RATE_LIMITED_SIGN_IN',
      `Too many failed admin-token attempts from this address; retry after ${wait} s.`,
      wait,
      {
        limit: SIGN_IN_FAILURES_PER_MINUTE,
        reset: Math.floor(nextMinuteBoundary(new Date()).getTime() / 1000),
      },
    );
  }
  const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  if (!presented || !adminTokenMatches(services.adminToken, presented)) {
    await services.quota.countFailedSignIn('admin', ip);
    throw unauthorized('INVALID_ADMIN_TOKEN', 'Admin routes and GET /metrics need Authorization: Bearer <admin token>');
  }
}

/** Where a server with this environment keeps its generated admin token. */
export const adminTokenFile = (env: NodeJS.ProcessEnv): string => path.join(dataDirOf(env), ADMIN_TOKEN_FILE);

/** The token as the CLI finds it: ADMIN_TOKEN, else the file the server wrote; never generated here. */
export async function readAdminToken(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const file = adminTokenFile(env);
  return (await readFile(file, 'utf8').catch(() => undefined))?.trim() || undefined;
}
