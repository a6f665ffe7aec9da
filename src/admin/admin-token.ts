import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDirSecret } from '../config/data-secret.ts';

export const ADMIN_TOKEN_FILE = 'admin-token';

/**
 * ADMIN_TOKEN when set; otherwise the token kept in the data directory, generated on first
 * start with 0600 rights. The CLI reads it the same way (src/cli/admin-client.ts).
 */
export async function resolveAdminToken(configured: string | undefined, dataDir: string): Promise<string> {
  return configured ?? dataDirSecret(dataDir, ADMIN_TOKEN_FILE, () => randomBytes(32).toString('base64url'));
}

export function adminTokenMatches(expected: string, presented: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The token as the CLI finds it: ADMIN_TOKEN, else the file the server wrote; never generated here. */
export async function readAdminToken(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const file = path.join(path.resolve(env.DATA_DIR || '.data'), ADMIN_TOKEN_FILE);
  return (await readFile(file, 'utf8').catch(() => undefined))?.trim() || undefined;
}
