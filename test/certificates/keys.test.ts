import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CertificateKeys } from '../../src/certificates/keys.ts';
import { parseSigningKeys } from '../../src/config/signing-keys.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const pem = (type: 'ed25519' | 'rsa' = 'ed25519') => {
  const { privateKey } = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 1024 }) : generateKeyPairSync('ed25519');
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
};

describe('certificate signing keys', () => {
  it('names the key by its RFC 7638 thumbprint (RFC 8037 appendix A.3 vector)', () => {
    const key = createPrivateKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
        x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      },
      format: 'jwk',
    });
    const keys = new CertificateKeys([key]);
    expect(keys.signingKid).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(keys.jwks.keys).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
        kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
        alg: 'EdDSA',
        use: 'sig',
      },
    ]);
  });

  it('signs with the first key and verifies with every key, a retired public-only one included', () => {
    const [current, retired] = [pem(), pem()];
    const retiredPublic = createPublicKey(retired).export({ type: 'spki', format: 'pem' }).toString();
    const old = new CertificateKeys(parseSigningKeys(retired));
    const data = Buffer.from('{"a":1}');
    const oldSignature = old.sign(data);

    const keys = new CertificateKeys(parseSigningKeys(`${current}\n${retiredPublic}`));
    expect(keys.jwks.keys.map((k) => k.kid)).toEqual([keys.signingKid, old.signingKid]);
    expect(keys.verify(data, oldSignature, old.signingKid)).toBe(true);
    expect(keys.verify(data, keys.sign(data), keys.signingKid)).toBe(true);
    expect(keys.verify(Buffer.from('{"a":2}'), oldSignature, old.signingKid)).toBe(false);
    expect(keys.verify(data, oldSignature, keys.signingKid)).toBe(false);
    expect(keys.verify(data, oldSignature, 'no-such-kid')).toBe(false);
    expect(keys.verify(data, `${oldSignature}!`, old.signingKid)).toBe(false);
    expect(keys.verify(data, 'AAAA', old.signingKid)).toBe(false);
  });

  it('reads CERT_SIGNING_KEY, also written on one line with \\n, and names the variable when it is unusable', () => {
    const key = pem();
    expect(loadConfig({ CERT_SIGNING_KEY: key.replaceAll('\n', '\\n') }).certSigningKeys).toHaveLength(1);
    expect(loadConfig({}).certSigningKeys).toBeUndefined();
    const publicFirst = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
    for (const [value, reason] of [
      ['not a key', /expected one or more PEM blocks/],
      [pem('rsa'), /key 1 is rsa, expected Ed25519/],
      [publicFirst + key, /the first key signs and must be a private key/],
      ['-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', /key 1 is not a valid PEM key/],
    ] as const) {
      expect(() => loadConfig({ CERT_SIGNING_KEY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CERT_SIGNING_KEY: value })).toThrow(
        new RegExp(`^invalid environment variable CERT_SIGNING_KEY: ${reason.source}`),
      );
    }
  });
});
