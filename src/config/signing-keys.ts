// CERT_SIGNING_KEY, parsed with the rest of the configuration; src/certificates/keys.ts signs and verifies with the keys.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

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
