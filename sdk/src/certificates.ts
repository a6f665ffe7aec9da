import { createHash, createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A public key of the service's JWKS (`/.well-known/jwks.json`). */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
  use?: string;
}

export interface Jwks {
  keys: Jwk[];
}

/**
 * A signed certificate as the JSON answer of its `verify_url` gives it (`Accept: application/json`),
 * or as stored from it: the signed payload, the base64url Ed25519 signature and the id of the key.
 */
export interface SignedCertificate {
  certificate_number?: string | null;
  payload: unknown;
  signature: string | null;
  key_id: string | null;
}

export interface CertificateCheck {
  valid: boolean;
  /** Why it is not valid; null when it is. */
  reason: string | null;
}

const invalid = (reason: string): CertificateCheck => ({ valid: false, reason });

/** RFC 7638 thumbprint of an Ed25519 JWK: SHA-256 of its canonical {crv, kty, x}, base64url (the service's key ids). */
const thumbprint = (jwk: Jwk) =>
  createHash('sha256')
    .update(canonicalize({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })!)
    .digest('base64url');

/**
 * Checks a certificate offline, as docs/certificates.md describes: the payload serialised by RFC 8785
 * (JSON Canonicalization Scheme), UTF-8, must carry the Ed25519 signature of the JWKS key whose
 * `kid` (its RFC 7638 thumbprint) is `key_id`, and the payload must be of this certificate number.
 * Revocation is not part of the signature: the `verdict` of the verify_url says whether the
 * organisation has revoked it since.
 */
export function verifyCertificate(certificate: SignedCertificate, jwks: Jwks): CertificateCheck {
  const { payload, signature, key_id } = certificate;
  if (payload === null || typeof payload !== 'object' || !signature || !key_id)
    return invalid('not a signed certificate: payload, signature or key_id missing');
  const jwk = jwks.keys.find((key) => key.kid === key_id);
  if (!jwk) return invalid(`unknown key id ${key_id}: no key of the JWKS has it`);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return invalid(`key ${key_id} is not an Ed25519 key`);
  if (thumbprint(jwk) !== key_id) return invalid(`key ${key_id} is not the key its id names (RFC 7638 thumbprint)`);
  const bytes = Buffer.from(signature, 'base64url');
  // Node's decoder skips stray characters: only the exact base64url of 64 bytes is the signature.
  if (bytes.length !== 64 || bytes.toString('base64url') !== signature)
    return invalid('the signature is not a base64url Ed25519 signature');
  const number = (payload as { certificate_number?: unknown }).certificate_number;
  if (certificate.certificate_number && number !== certificate.certificate_number)
    return invalid(`the payload is of certificate ${String(number)}, not ${certificate.certificate_number}`);
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  const signed = Buffer.from(canonicalize(payload)!, 'utf8');
  return verify(null, signed, key, bytes)
    ? { valid: true, reason: null }
    : invalid(`the signature does not match the payload under key ${key_id}`);
}
