import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { dataDirSecret } from '../config/data-secret.ts';

/** Where the generated signing key is kept when CERT_SIGNING_KEY is not set. */
export const SIGNING_KEY_FILE = 'certificate-signing-key.pem';
export const SIGNATURE_ALGORITHM = 'EdDSA';

const PEM_BLOCK = /-----BEGIN (PRIVATE|PUBLIC) KEY-----[\s\S]*?-----END \1 KEY-----/g;

/**
 * The Ed25519 keys of a PEM bundle, in order: PKCS#8 private keys or SPKI public keys (a retired key
 * may be kept as its public half only). The first must be private: it signs. Throws naming the problem.
 */
export function parseSigningKeys(pem: string): KeyObject[] {
  // Environment files often carry PEM on one line with literal \n.
  const blocks = pem.replaceAll('\\n', '\n').match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error('expected one or more PEM blocks (-----BEGIN PRIVATE KEY-----)');
  const keys = blocks.map((block, i) => {
    let key: KeyObject;
    try {
      key = block.includes('PRIVATE KEY') ? createPrivateKey(block) : createPublicKey(block);
    } catch {
      throw new Error(`key ${i + 1} is not a valid PEM key`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`key ${i + 1} is ${key.asymmetricKeyType}, expected Ed25519`);
    return key;
  });
  if (keys[0]!.type !== 'private') throw new Error('the first key signs and must be a private key');
  return keys;
}

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
  readonly jwks: { keys: PublicJwk[] };

  constructor(keys: readonly KeyObject[]) {
    this.signingKey = keys[0]!;
    const jwks: PublicJwk[] = [];
    for (const key of keys) {
      const publicKey = key.type === 'public' ? key : createPublicKey(key);
      const kid = thumbprint(publicKey);
      if (this.byKid.has(kid)) continue;
      this.byKid.set(kid, publicKey);
      jwks.push({ kty: 'OKP', crv: 'Ed25519', x: publicKey.export({ format: 'jwk' }).x!, kid, alg: SIGNATURE_ALGORITHM, use: 'sig' });
    }
    this.signingKid = jwks[0]!.kid;
    this.jwks = { keys: jwks };
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

/** CERT_SIGNING_KEY's keys; when unset, the key kept in the data directory (generated on first start, 0600). */
export async function loadCertificateKeys(configured: readonly KeyObject[] | undefined, dataDir: string): Promise<CertificateKeys> {
  if (configured) return new CertificateKeys(configured);
  const generate = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim();
  return new CertificateKeys(parseSigningKeys(await dataDirSecret(dataDir, SIGNING_KEY_FILE, generate)));
}
