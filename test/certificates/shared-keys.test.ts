import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import type { Database } from '../../src/db/database.ts';
import { ConfigError } from '../../src/config/config.ts';
import { CertificateKeys, SIGNING_KEY_FILE } from '../../src/certificates/keys.ts';
import { SECRETS_KEY_FILE, SecretBox, SecretBoxError } from '../../src/secrets/secret-box.ts';
import { issue, storedCalculation } from './support.ts';

const pkcs8 = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const kidOf = (pem: string) => new CertificateKeys([createPublicKey(pem)]).signingKid;
const hexKey = () => randomBytes(32).toString('hex');

let ip = 0;
/** The public verdict of `verifyUrl` as answered by `app` (each lookup from an address of its own: the limit is tested elsewhere). */
const verdictOn = async (app: TestApp, verifyUrl: string) =>
  (
    await app.json(new URL(verifyUrl).pathname, {
      headers: { accept: 'application/json' },
      ip: `10.44.${Math.floor(ip / 250)}.${(ip++ % 250) + 1}`,
    })
  ).body;

describe(`one key set for every instance on a ${TEST_DATABASE_KIND} database`, () => {
  let db: Database;
  const apps: TestApp[] = [];
  const dirs: string[] = [];
  /** An instance on the shared database with a data directory of its own (its files written first, as an older version left them). */
  async function instance(env: Record<string, string> = {}, files: Record<string, string> = {}) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-keys-'));
    dirs.push(dataDir);
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dataDir, name), text, { mode: 0o600 });
    const app = await createTestApp({ DATA_DIR: dataDir, ...env }, { database: db });
    apps.push(app);
    return app;
  }
  const clearKeys = async () => {
    await db.prisma.certificateSigningKey.deleteMany();
    await db.prisma.serviceSecret.deleteMany();
  };

  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    await clearKeys();
  });
  afterAll(() => db.close());

  it('two instances starting together agree on one signing key and verify each other’s certificates', async () => {
    const [a, b] = await Promise.all([instance(), instance()]);
    expect(a.app.services.certificateKeys.signingKid).toBe(b.app.services.certificateKeys.signingKid);
    expect(await db.prisma.certificateSigningKey.count()).toBe(1);
    expect(await db.prisma.serviceSecret.count()).toBe(1);
    expect((await a.json('/.well-known/jwks.json')).body).toEqual((await b.json('/.well-known/jwks.json')).body);

    const org = await a.createOrg('pro', 'Two Instances Ltd');
    const { key } = await a.createKey(org.id);
    const fromA = (await issue(a, key, await storedCalculation(a, key))).body;
    const fromB = (await issue(b, key, await storedCalculation(b, key))).body;
    for (const app of [a, b]) {
      for (const certificate of [fromA, fromB]) expect(await verdictOn(app, certificate.verify_url)).toMatchObject({ verdict: 'valid' });
    }
    // The private key is stored sealed, never as PEM.
    const [row] = await db.prisma.certificateSigningKey.findMany();
    expect(row!.private_key_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
  });

  it('keeps the key across a restart of the instance', async () => {
    const first = await instance();
    const kid = first.app.services.certificateKeys.signingKid;
    const org = await first.createOrg('pro', 'Restart GmbH');
    const { key } = await first.createKey(org.id);
    const certificate = (await issue(first, key, await storedCalculation(first, key))).body;
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    const again = await instance();
    expect(again.app.services.certificateKeys.signingKid).toBe(kid);
    expect(await verdictOn(again, certificate.verify_url)).toMatchObject({ verdict: 'valid', key_id: kid });
  });

  it('takes over the key files older data directories kept: the first signs, every one verifies on every instance', async () => {
    const [pemA, pemB] = [pkcs8(), pkcs8()];
    const [secretsA, secretsB] = [hexKey(), hexKey()];
    // Before the upgrade, instance B signed with its data directory's key (as CERT_SIGNING_KEY does) and
    // sealed with its own secrets key: nothing of either in the database.
    const before = await instance({ CERT_SIGNING_KEY: pemB, SECRETS_KEY: secretsB });
    const org = await before.createOrg('pro', 'Upgrade SARL');
    const { key } = await before.createKey(org.id);
    const signedByB = (await issue(before, key, await storedCalculation(before, key))).body;
    await before.close();
    apps.splice(apps.indexOf(before), 1);

    // A upgrades first, B after it: A learns B's key when it meets it, without a restart.
    const a = await instance({}, { [SIGNING_KEY_FILE]: pemA, [SECRETS_KEY_FILE]: secretsA });
    const b = await instance({}, { [SIGNING_KEY_FILE]: pemB, [SECRETS_KEY_FILE]: secretsB });
    for (const app of [a, b]) {
      expect(app.app.services.certificateKeys.signingKid).toBe(kidOf(pemA));
      expect(await verdictOn(app, signedByB.verify_url)).toMatchObject({ verdict: 'valid', key_id: kidOf(pemB) });
      expect((await app.json('/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid)).toEqual([kidOf(pemA), kidOf(pemB)]);
    }
    const rows = await db.prisma.certificateSigningKey.findMany({ orderBy: { signs: 'desc' } });
    expect(rows.map((r) => [r.kid, r.signs, r.private_key_sealed === null])).toEqual([
      [kidOf(pemA), true, false],
      [kidOf(pemB), false, true],
    ]);
    // A's secrets key became the database's; B still opens what it sealed with its own file's key.
    expect((await db.prisma.serviceSecret.findMany()).map((s) => s.value)).toEqual([secretsA]);
    const sealedByB = new SecretBox(Buffer.from(secretsB, 'hex')).seal('blancco-key', 'erasure_connections:org');
    expect(b.app.services.secrets.open(sealedByB, 'erasure_connections:org')).toBe('blancco-key');
    expect(() => a.app.services.secrets.open(sealedByB, 'erasure_connections:org')).toThrow(SecretBoxError);
    expect(a.app.services.secrets.open(b.app.services.secrets.seal('new', 'ctx'), 'ctx')).toBe('new');
  });

  it('signs with CERT_SIGNING_KEY when it is set, and still verifies and publishes the database’s keys', async () => {
    const shared = await instance();
    const storedKid = shared.app.services.certificateKeys.signingKid;
    const configuredPem = pkcs8();
    const configured = await instance({ CERT_SIGNING_KEY: configuredPem });
    expect(configured.app.services.certificateKeys.signingKid).toBe(kidOf(configuredPem));
    expect((await configured.json('/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid)).toEqual([
      kidOf(configuredPem),
      storedKid,
    ]);
    const org = await shared.createOrg('pro', 'Configured Key AG');
    const { key } = await shared.createKey(org.id);
    const byStored = (await issue(shared, key, await storedCalculation(shared, key))).body;
    expect(await verdictOn(configured, byStored.verify_url)).toMatchObject({ verdict: 'valid', key_id: storedKid });
    // The configured key is the operator's to share: it is not written to the database.
    expect(await db.prisma.certificateSigningKey.count()).toBe(1);
  });

  it('refuses to start, saying what to set, when the signing key does not open with this instance’s SECRETS_KEY', async () => {
    const first = await instance({ SECRETS_KEY: hexKey() });
    const kid = first.app.services.certificateKeys.signingKid;
    for (const env of [{ SECRETS_KEY: hexKey() }, {}] as Record<string, string>[]) {
      const refused = instance(env);
      await expect(refused).rejects.toThrow(ConfigError);
      await expect(refused).rejects.toThrow(
        `the certificate signing key in the database (key id ${kid}) does not open with this instance's secrets key: set SECRETS_KEY to the value the other instances on this database use (or set CERT_SIGNING_KEY)`,
      );
    }
  });
});

describe('SecretBox with earlier keys', () => {
  it('seals with its key and opens values of its earlier keys, never another context', () => {
    const [current, earlier, unrelated] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const box = new SecretBox(current, [earlier]);
    expect(box.open(new SecretBox(earlier).seal('old', 'row:1'), 'row:1')).toBe('old');
    expect(new SecretBox(current).open(box.seal('new', 'row:1'), 'row:1')).toBe('new');
    expect(() => new SecretBox(earlier).open(box.seal('new', 'row:1'), 'row:1')).toThrow(SecretBoxError);
    expect(() => box.open(new SecretBox(unrelated).seal('x', 'row:1'), 'row:1')).toThrow(SecretBoxError);
    expect(() => box.open(new SecretBox(earlier).seal('old', 'row:1'), 'row:2')).toThrow(SecretBoxError);
  });
});
