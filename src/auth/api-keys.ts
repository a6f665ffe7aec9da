import { createHash, randomBytes } from 'node:crypto';

// Keys look like svc_live_<32 base62 characters> (~190 bits). Only their SHA-256 is stored:
// a leaked database cannot be used to call the API. SHA-256 without salt is enough for
// random high-entropy secrets (no dictionary to attack) and keeps the lookup one indexed read.
export const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{32}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type KeyEnvironment = 'live' | 'test';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(environment: KeyEnvironment): { key: string; hash: string; prefix: string } {
  let body = '';
  // Rejection sampling keeps every character uniformly distributed.
  while (body.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < 32) body += ALPHABET[byte % 62];
    }
  }
  const key = `svc_${environment}_${body}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, `svc_${environment}_`.length + 4) };
}
