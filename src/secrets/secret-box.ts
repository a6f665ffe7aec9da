import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PrismaClient } from '../db/database.ts';

/** Where the secrets key was generated before it was kept in the database: still read, to open what it sealed. */
export const SECRETS_KEY_FILE = 'secrets-key';
/** Its row in service_secrets while SECRETS_KEY is unset. */
const SECRETS_KEY_ROW = 'secrets-key';
const VERSION = 'v1';

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** SECRETS_KEY: 32 bytes as 64 hex digits or base64 (with or without padding). */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(trimmed) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed))) {
    throw new SecretBoxError('must be 32 bytes: 64 hex digits or 44 base64 characters (openssl rand -base64 32)');
  }
  return key;
}

/**
 * Secrets at rest (third-party API keys): AES-256-GCM with a random 96-bit nonce per value. The
 * `context` (table and row owner) is authenticated data, so a value copied to another row or
 * organisation does not decrypt. Format: v1.<nonce>.<tag>.<ciphertext>, base64url parts.
 */
export class SecretBox {
  private readonly keys: readonly Buffer[];

  /** Seals with `key`; opens with it or any of `earlierKeys` (keys that sealed values before it). */
  constructor(key: Buffer, earlierKeys: readonly Buffer[] = []) {
    this.keys = [key, ...earlierKeys.filter((earlier) => !earlier.equals(key))];
    if (this.keys.some((k) => k.length !== 32)) throw new SecretBoxError('the key must be 32 bytes');
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, nonce).setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, nonce, cipher.getAuthTag(), body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext, or SecretBoxError when the value was sealed with another key or context, or altered. */
  open(sealed: string, context: string): string {
    const [version, nonce, tag, body, ...rest] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined || rest.length) throw new SecretBoxError('not a sealed value');
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url')).setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // the next key, if any
      }
    }
    throw new SecretBoxError('the value does not open with this key (SECRETS_KEY changed?) or was altered');
  }
}

/**
 * The secrets key: SECRETS_KEY when set; else the one kept in the database (service_secrets), which the first
 * instance creates (taking over its data directory's secrets-key file, if it has one) and every other instance
 * on the database reads, so they all open each other's values. Keys that sealed values earlier (the database's
 * before SECRETS_KEY was set, the data directory's file) still open them.
 */
export async function loadSecretBox(configured: Buffer | undefined, prisma: PrismaClient, dataDir: string): Promise<SecretBox> {
  const fromFile = await readFile(path.join(dataDir, SECRETS_KEY_FILE), 'utf8').then(
    (text) => parseSecretsKey(text),
    () => undefined,
  );
  const stored = async () => {
    const row = await prisma.serviceSecret.findUnique({ where: { name: SECRETS_KEY_ROW } });
    return row ? parseSecretsKey(row.value) : undefined;
  };
  const inDatabase = await stored();
  const earlier = (...keys: (Buffer | undefined)[]) => keys.filter((key): key is Buffer => key !== undefined);
  if (configured) return new SecretBox(configured, earlier(inDatabase, fromFile));
  if (inDatabase) return new SecretBox(inDatabase, earlier(fromFile));
  await prisma.serviceSecret.createMany({
    data: [{ name: SECRETS_KEY_ROW, value: (fromFile ?? randomBytes(32)).toString('hex') }],
    skipDuplicates: true,
  });
  return new SecretBox((await stored())!, earlier(fromFile));
}
