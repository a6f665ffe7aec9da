import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { ConfigError } from '../config/config-error.ts';
import { parseSigningKeys } from '../config/signing-keys.ts';
import type { PrismaClient } from '../db/database.ts';
import { SecretBoxError, type SecretBox } from '../secrets/secret-box.ts';

/** Where a data directory kept its generated signing key before keys were kept in the database: taken over at start. */
export const SIGNING_KEY_FILE = 'certificate-signing-key.pem';
export const SIGNATURE_ALGORITHM = 'EdDSA';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: typeof SIGNATURE_ALGORITHM;
  use: 'sig';
}

/** RFC 7638 thumbprint: SHA-256 of the required members (crv, kty, x) in canonical JSON, base64url. */
function thumbprint(publicKey: KeyObject): string {
  const { crv, kty, x } = publicKey.export({ format: 'jwk' });
  return createHash('sha256').update(canonicalize({ crv, kty, x })!).digest('base64url');
}

/**
 * The certificate keys: the first signs, every key (rotated-out ones included) verifies and is
 * published in the JWKS, so certificates signed before a rotation keep verifying.
 */
export class CertificateKeys {
  readonly signingKid: string;
  private readonly signingKey: KeyObject;
  private readonly byKid = new Map<string, KeyObject>();
  readonly jwks: { keys: PublicJwk[] } = { keys: [] };

  /** `stored`: the public keys kept in the database, which another instance may add to after this one started. */
  constructor(
    keys: readonly KeyObject[],
    private readonly stored?: () => Promise<KeyObject[]>,
  ) {
    this.signingKey = keys[0]!;
    keys.forEach((key) => this.add(key));
    this.signingKid = this.jwks.keys[0]!.kid;
  }

  private add(key: KeyObject): void {
    const publicKey = key.type === 'public' ? key : createPublicKey(key);
    const kid = thumbprint(publicKey);
    if (this.byKid.has(kid)) return;
    this.byKid.set(kid, publicKey);
    this.jwks.keys.push({
      kty: 'OKP',
      crv: 'Ed25519',
      x: publicKey.export({ format: 'jwk' }).x!,
      kid,
      alg: SIGNATURE_ALGORITHM,
      use: 'sig',
    });
  }

  /**
   * Learns the database's keys this instance does not know yet: an instance started later takes over its
   * data directory's old key, whose certificates every instance must then verify and publish.
   */
  async refresh(): Promise<void> {
    for (const key of (await this.stored?.()) ?? []) this.add(key);
  }

  /** Refreshes when `kid` is not a known key, so verify() can answer for it. */
  async learn(kid: string): Promise<void> {
    if (!this.byKid.has(kid)) await this.refresh();
  }

  /** Base64url Ed25519 signature of `data` by the signing key. */
  sign(data: Buffer): string {
    return sign(null, data, this.signingKey).toString('base64url');
  }

  /** False for an unknown key id or a signature that does not match, including one not in canonical base64url. */
  verify(data: Buffer, signature: string, kid: string): boolean {
    const key = this.byKid.get(kid);
    const bytes = Buffer.from(signature, 'base64url');
    // Node's decoder skips stray characters and unused trailing bits: a changed string must not pass as the same signature.
    return key !== undefined && bytes.toString('base64url') === signature && verify(null, data, key, bytes);
  }
}

const pemOf = (key: KeyObject, type: 'pkcs8' | 'spki') => key.export({ type, format: 'pem' }).toString().trim();
const sealContext = (kid: string) => `certificate_signing_keys:${kid}`;

/**
 * CERT_SIGNING_KEY's keys (they sign), then the database's as verify-only keys; when CERT_SIGNING_KEY is unset,
 * the keys kept in the database (certificate_signing_keys), shared by every instance on it. The first instance
 * creates the signing key (INSERT … ON CONFLICT DO NOTHING, then every instance reads the one that won); a data
 * directory's key file from before is taken over, as the signing key if there is none yet, else to verify only.
 * Throws ConfigError when the signing key does not open with this instance's secrets key.
 */
export async function loadCertificateKeys(
  configured: readonly KeyObject[] | undefined,
  prisma: PrismaClient,
  secrets: SecretBox,
  dataDir: string,
): Promise<CertificateKeys> {
  const stored = () => prisma.certificateSigningKey.findMany({ orderBy: [{ signs: 'desc' }, { created_at: 'asc' }, { kid: 'asc' }] });
  const publicKeys = (list: { public_key: string }[]) => list.map((row) => createPublicKey(row.public_key));
  const storedPublicKeys = async () => publicKeys(await stored());
  let rows = await stored();
  if (configured) return new CertificateKeys([...configured, ...publicKeys(rows)], storedPublicKeys);

  const fromFile = await readFile(path.join(dataDir, SIGNING_KEY_FILE), 'utf8').then(
    (pem) => parseSigningKeys(pem)[0]!,
    () => undefined,
  );
  const fileKid = fromFile ? thumbprint(createPublicKey(fromFile)) : undefined;
  const fileKeyUnknown = fileKid !== undefined && !rows.some((row) => row.kid === fileKid);
  if (fileKeyUnknown || !rows.some((row) => row.signs)) {
    const candidate = fromFile ?? generateKeyPairSync('ed25519').privateKey;
    const kid = thumbprint(createPublicKey(candidate));
    const publicKey = pemOf(createPublicKey(candidate), 'spki');
    const signing = {
      kid,
      public_key: publicKey,
      private_key_sealed: secrets.seal(pemOf(candidate, 'pkcs8'), sealContext(kid)),
      signs: true,
    };
    const { count } = await prisma.certificateSigningKey.createMany({ data: [signing], skipDuplicates: true });
    // Another key signs already: a data directory's own key still verifies the certificates it signed.
    if (count === 0 && fromFile)
      await prisma.certificateSigningKey.createMany({ data: [{ kid, public_key: publicKey }], skipDuplicates: true });
    rows = await stored();
  }

  const signingRow = rows.find((row) => row.signs)!;
  let signingKey: KeyObject;
  try {
    signingKey = createPrivateKey(secrets.open(signingRow.private_key_sealed!, sealContext(signingRow.kid)));
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new ConfigError(
      `the certificate signing key in the database (key id ${signingRow.kid}) does not open with this instance's secrets key: ` +
        'set SECRETS_KEY to the value the other instances on this database use (or set CERT_SIGNING_KEY)',
    );
  }
  return new CertificateKeys([signingKey, ...publicKeys(rows.filter((row) => row !== signingRow))], storedPublicKeys);
}
