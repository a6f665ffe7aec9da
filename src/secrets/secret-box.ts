import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { dataDirSecret } from '../config/data-secret.ts';

const KEY_FILE = 'secrets-key';
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
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError('the key must be 32 bytes');
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce).setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, nonce, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The plaintext, or SecretBoxError when the value was sealed with another key or context, or altered. */
  open(sealed: string, context: string): string {
    const [version, nonce, tag, body, ...rest] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined || rest.length) throw new SecretBoxError('not a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url')).setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the value does not open with this key (SECRETS_KEY changed?) or was altered');
    }
  }
}

/** The configured SECRETS_KEY, else one generated into the data directory on first start (like the other secrets). */
export async function loadSecretBox(configured: Buffer | undefined, dataDir: string): Promise<SecretBox> {
  return new SecretBox(configured ?? parseSecretsKey(await dataDirSecret(dataDir, KEY_FILE, () => randomBytes(32).toString('hex'))));
}
