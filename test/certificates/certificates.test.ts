import { execFile } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { SANDBOX_ORG_ID, sandboxOrgId } from '../../src/sandbox/sandbox.ts';
import { SIGNING_KEY_FILE } from '../../src/certificates/keys.ts';
import { VERIFY_LOOKUPS_PER_MINUTE } from '../../src/certificates/routes.ts';
import * as fmt from '../../src/documents/format.ts';
import { awayFromMinuteEnd } from '../support/minute.ts';
import { alterStoredTotal, bearer, flipSignatureByte, issue, revoke, storedCalculation } from './support.ts';

let t: TestApp;
let orgA: { id: string; name: string };
let keyA: string;
let keyB: string;

beforeAll(async () => {
  t = await createTestApp();
  orgA = await t.createOrg('pro', 'Müller GmbH');
  keyA = (await t.createKey(orgA.id)).key;
  keyB = (await t.createKey((await t.createOrg('pro', 'Other Org')).id)).key;
});
afterAll(() => t.close());

// Verification is limited per client IP: each lookup here comes from an address of its own (the limit has its own test).
let ipSuffix = 0;
const verifyJson = (url: string, ip = `10.9.${Math.floor(ipSuffix / 250)}.${(ipSuffix++ % 250) + 1}`) =>
  t.json(new URL(url).pathname, { headers: { accept: 'application/json' }, ip });
const NUMBER = /^LCF-[A-Z0-9]{10}$/;

describe(`certificates on ${TEST_DATABASE_KIND}`, () => {
  it('issues a signed certificate for a stored calculation (spec 2.8) and logs it', async () => {
    const calculationId = await storedCalculation(t, keyA);
    const res = await issue(t, keyA, calculationId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['certificate_number', 'download_url', 'id', 'issued_at', 'verify_url']);
    const { id, certificate_number, issued_at, download_url, verify_url } = res.body;
    expect(certificate_number).toMatch(NUMBER);
    expect(new Date(issued_at).toISOString()).toBe(issued_at);
    expect(download_url).toBe(`http://localhost/v1/certificate?id=${id}`);
    expect(verify_url).toBe(`http://localhost/verify/${certificate_number}`);

    const row = await t.app.services.db.prisma.certificate.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      org_id: orgA.id,
      calculation_id: calculationId,
      certificate_number,
      key_id: t.app.services.certificateKeys.signingKid,
    });
    const calc = await t.app.services.db.prisma.calculation.findUniqueOrThrow({ where: { id: calculationId } });
    expect(row.payload).toMatchObject({
      format: 'lcf-certificate/2',
      certificate_number,
      issued_at,
      calculation_id: calculationId,
      organization_name: 'Müller GmbH',
      product: { brand: 'Dell', category: 'laptop' },
      country: 'DE',
      statement: {
        kind: 'footprint',
        phases: {
          production_kg: calc.production_kg,
          transport_kg: calc.transport_kg,
          use_phase_kg: calc.use_phase_kg,
          end_of_life_kg: calc.end_of_life_kg,
        },
        total_kg_co2e: calc.total_kg_co2e,
        lifetime_years: (calc.result as any).methodology.lifetime_years,
      },
      methodology: { engine_version: calc.engine_version, confidence: calc.confidence },
      sandbox: false,
    });
    expect((row.payload as any).data_sources).toContainEqual(
      expect.objectContaining({
        label: expect.stringMatching(/^Grid factor, country of use \(DE\)/),
        version: expect.any(String),
        valid_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      }),
    );
    const audit = await t.app.services.db.prisma.auditLog.findMany({ where: { subject_id: id } });
    expect(audit).toEqual([
      expect.objectContaining({
        org_id: orgA.id,
        event: 'certificate.issued',
        subject_type: 'certificate',
        data: { certificate_number, calculation_id: calculationId },
      }),
    ]);
  });

  it('answers the certificate in force when issued again, also under concurrency', async () => {
    const calculationId = await storedCalculation(t, keyA);
    const answers = await Promise.all(Array.from({ length: 6 }, () => issue(t, keyA, calculationId)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect((await issue(t, keyA, calculationId)).body).toEqual(answers[0]!.body);
    expect(await t.app.services.db.prisma.certificate.count({ where: { calculation_id: calculationId } })).toBe(1);
    expect(await t.app.services.db.prisma.auditLog.count({ where: { event: 'certificate.issued', subject_id: answers[0]!.body.id } })).toBe(
      1,
    );
  });

  it('round trip: verify without a key (JSON, checked against the JWKS) and download the PDF', async () => {
    const { body: cert } = await issue(t, keyA, await storedCalculation(t, keyA));
    const res = await verifyJson(cert.verify_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      verdict: 'valid',
      certificate_number: cert.certificate_number,
      algorithm: 'EdDSA',
      revoked_at: null,
      sandbox: false,
    });
    expect(res.body.payload.certificate_number).toBe(cert.certificate_number);

    // What an auditor does with no account: the published key, the canonical payload, the signature.
    const jwks = await t.json('/.well-known/jwks.json');
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === res.body.key_id);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify(null, Buffer.from(canonicalize(res.body.payload)!), publicKey, Buffer.from(res.body.signature, 'base64url'))).toBe(true);

    const pdf = await t.request(new URL(cert.download_url).pathname + new URL(cert.download_url).search, { headers: bearer(keyA) });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="${cert.certificate_number}.pdf"`);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('says altered when a stored fact or a signature byte changed', async () => {
    const changedFact = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    await alterStoredTotal(t, changedFact.id);
    const factRes = await verifyJson(changedFact.verify_url);
    expect(factRes.status).toBe(200);
    expect(factRes.body.verdict).toBe('altered');

    const changedSignature = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    await flipSignatureByte(t, changedSignature.id);
    expect((await verifyJson(changedSignature.verify_url)).body.verdict).toBe('altered');

    // A valid payload and signature moved onto another certificate's row is no longer that certificate's.
    const donor = await t.app.services.db.prisma.certificate.findUniqueOrThrow({
      where: { id: (await issue(t, keyA, await storedCalculation(t, keyA))).body.id },
    });
    const target = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    await t.app.services.db.prisma.certificate.update({
      where: { id: target.id },
      data: { payload: donor.payload as object, signature: donor.signature, content_sha256: donor.content_sha256 },
    });
    expect((await verifyJson(target.verify_url)).body.verdict).toBe('altered');
  });

  it('revokes (audit-logged, idempotent); verification then says revoked and a new certificate can be issued', async () => {
    const calculationId = await storedCalculation(t, keyA);
    const cert = (await issue(t, keyA, calculationId)).body;
    const res = await revoke(t, keyA, cert.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: cert.id,
      certificate_number: cert.certificate_number,
      revoked_at: expect.any(String),
      verify_url: cert.verify_url,
    });
    expect((await revoke(t, keyA, cert.id)).body).toEqual(res.body);
    expect(await t.app.services.db.prisma.auditLog.count({ where: { event: 'certificate.revoked', subject_id: cert.id } })).toBe(1);

    const verified = await verifyJson(cert.verify_url);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ verdict: 'revoked', revoked_at: res.body.revoked_at });

    const reissued = await issue(t, keyA, calculationId);
    expect(reissued.status).toBe(200);
    expect(reissued.body.id).not.toBe(cert.id);
    expect(reissued.body.certificate_number).not.toBe(cert.certificate_number);
    expect((await verifyJson(reissued.body.verify_url)).body.verdict).toBe('valid');
  });

  it("answers another organisation's calculation or certificate exactly like a missing one", async () => {
    const calculationId = await storedCalculation(t, keyA);
    const cert = (await issue(t, keyA, calculationId)).body;
    const random = randomUUID();

    const foreignIssue = await issue(t, keyB, calculationId);
    const missingIssue = await issue(t, keyB, random);
    expect(foreignIssue.status).toBe(404);
    expect(foreignIssue.body).toEqual({ ...missingIssue.body, details: missingIssue.body.details.replace(random, calculationId) });
    expect(foreignIssue.body.code).toBe('NOT_FOUND');

    const download = (key: string, id: string) => t.json(`/v1/certificate?id=${id}`, { headers: bearer(key) });
    const [foreignPdf, missingPdf] = [await download(keyB, cert.id), await download(keyB, random)];
    expect(foreignPdf.status).toBe(404);
    expect(foreignPdf.body).toEqual({ ...missingPdf.body, details: missingPdf.body.details.replace(random, cert.id) });

    const [foreignRevoke, missingRevoke] = [await revoke(t, keyB, cert.id), await revoke(t, keyB, random)];
    expect(foreignRevoke.status).toBe(404);
    expect(foreignRevoke.body).toEqual({ ...missingRevoke.body, details: missingRevoke.body.details.replace(random, cert.id) });
    expect((await verifyJson(cert.verify_url)).body.verdict).toBe('valid');
  });

  it('answers unknown numbers with 404 and verdict unknown', async () => {
    for (const number of ['LCF-0000000000', 'LCF-ZZZZ', 'nonsense']) {
      const res = await t.json(`/verify/${number}`, { headers: { accept: 'application/json' }, ip: '10.8.0.1' });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        verdict: 'unknown',
        certificate_number: number.toUpperCase(),
        payload: null,
        signature: null,
        key_id: null,
        code: 'CERTIFICATE_UNKNOWN',
      });
    }
  });

  it('validates input: 400 naming the field, 401 without a key, 403 without organisation context', async () => {
    const bad = await issue(t, keyA, 'not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_PARAMETER', details: expect.stringMatching(/^calculation_id: must be a UUID/) });
    const missing = await t.json('/v1/certificate', { method: 'POST', headers: bearer(keyA), body: '{}' });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toMatch(/^calculation_id: /);
    const tooLong = await issue(t, keyA, 'a'.repeat(65));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toMatch(/^calculation_id: /);

    const badId = await t.json('/v1/certificate?id=abc', { headers: bearer(keyA) });
    expect(badId.status).toBe(400);
    expect(badId.body.details).toMatch(/^id: must be a UUID/);
    const noId = await t.json('/v1/certificate', { headers: bearer(keyA) });
    expect(noId.status).toBe(400);
    expect(noId.body.details).toBe('id: is required');
    expect((await revoke(t, keyA, 'x')).body.details).toMatch(/^id: must be a UUID/);

    const anonymous = await t.json('/v1/certificate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ calculation_id: randomUUID() }),
    });
    expect(anonymous.status).toBe(401);
    expect((await t.json(`/v1/certificate?id=${randomUUID()}`)).status).toBe(401);
    const noOrgKey = (await t.createKey(orgA.id, { org_context: false })).key;
    const noOrg = await issue(t, noOrgKey, randomUUID());
    expect(noOrg.status).toBe(403);
    expect(noOrg.body.code).toBe('NO_ORGANIZATION_CONTEXT');
    expect((await t.json(`/v1/certificate?id=${randomUUID()}`, { headers: bearer(noOrgKey) })).body.code).toBe('NO_ORGANIZATION_CONTEXT');
  });

  it('refuses a stored calculation without the record a certificate cites (422)', async () => {
    const calculationId = await storedCalculation(t, keyA);
    await t.app.services.db.prisma.calculation.update({ where: { id: calculationId }, data: { result: {} } });
    const res = await issue(t, keyA, calculationId);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('CALCULATION_NOT_CERTIFIABLE');
  });

  it('issues test-key certificates in the sandbox and says so when verified', async () => {
    const testKey = (await t.createKey(orgA.id, { environment: 'test' })).key;
    const cert = (await issue(t, testKey, await storedCalculation(t, testKey))).body;
    const row = await t.app.services.db.prisma.certificate.findUniqueOrThrow({ where: { id: cert.id } });
    expect(row.org_id).toBe(sandboxOrgId(orgA.id));
    expect(row.payload).toMatchObject({ sandbox: true, organization_name: 'Sandbox of Müller GmbH' });
    const verified = await verifyJson(cert.verify_url);
    expect(verified.body).toMatchObject({ verdict: 'valid', sandbox: true });
    const page = await (await t.request(new URL(cert.verify_url).pathname, { ip: '10.7.0.1' })).text();
    expect(page).toContain('Sandbox certificate.');
    // The live key of the same organisation does not see sandbox certificates.
    expect((await t.json(`/v1/certificate?id=${cert.id}`, { headers: bearer(keyA) })).status).toBe(404);

    // A test key without organisation context reads the shared demo sandbox and cannot certify there.
    const demoKey = (await t.createKey(orgA.id, { environment: 'test', org_context: false })).key;
    expect((await t.json('/v1/reference/categories', { headers: bearer(demoKey) })).status).toBe(200);
    const demoCalculation = await t.app.services.db.prisma.calculation.findFirstOrThrow({ where: { org_id: SANDBOX_ORG_ID } });
    const refused = await issue(t, demoKey, demoCalculation.id);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('SANDBOX_READ_ONLY');
  });

  it('serves a script-free verification page with a strict policy', async () => {
    const cert = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    const res = await t.request(new URL(cert.verify_url).pathname, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      ip: '10.7.0.2',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('data-verdict="valid"');
    expect(html).toContain('Müller GmbH');
    const unknown = await t.request('/verify/LCF-AAAAAAAAAA', { ip: '10.7.0.2' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('data-verdict="unknown"');
  });

  it('keeps the generated signing key in the database, its private half sealed, and publishes it as a JWK', async () => {
    const [row, ...others] = await t.app.services.db.prisma.certificateSigningKey.findMany();
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      kid: t.app.services.certificateKeys.signingKid,
      signs: true,
      private_key_sealed: expect.stringMatching(/^v1\./),
    });
    await expect(stat(path.join(t.dataDir, SIGNING_KEY_FILE))).rejects.toThrow(/ENOENT/);
    const res = await t.json('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: t.app.services.certificateKeys.signingKid, alg: 'EdDSA', use: 'sig' },
    ]);
  });

  it('renders the PDF with the number, the product and the total as extractable text', async () => {
    const cert = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    const res = await t.request(`/v1/certificate?id=${cert.id}`, { headers: bearer(keyA) });
    expect(res.status).toBe(200);
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-cert-'));
    try {
      const file = path.join(dir, 'certificate.pdf');
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-']);
      const { payload } = await t.app.services.db.prisma.certificate.findUniqueOrThrow({ where: { id: cert.id } });
      const facts = payload as { product: { name: string }; statement: { total_kg_co2e: number } };
      expect(stdout).toContain(cert.certificate_number);
      expect(stdout).toContain(facts.product.name);
      expect(stdout).toContain(fmt.kg(facts.statement.total_kg_co2e));
      expect(stdout).toContain('Müller GmbH');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it(`limits verification to ${VERIFY_LOOKUPS_PER_MINUTE} lookups a minute per client IP, found or not`, async () => {
    const cert = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    const known = new URL(cert.verify_url).pathname;
    await awayFromMinuteEnd();
    const ip = '10.66.0.1';
    const statuses: number[] = [];
    for (let i = 0; i < VERIFY_LOOKUPS_PER_MINUTE; i++) {
      statuses.push(
        (await t.request(i % 2 ? known : `/verify/LCF-${String(i).padStart(10, '0')}`, { headers: { accept: 'application/json' }, ip }))
          .status,
      );
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(VERIFY_LOOKUPS_PER_MINUTE / 2);
    expect(statuses.filter((s) => s === 404)).toHaveLength(VERIFY_LOOKUPS_PER_MINUTE / 2);
    for (const pathname of [known, '/verify/LCF-UNKNOWN000']) {
      const limited = await t.json(pathname, { ip });
      expect(limited.status).toBe(429);
      expect(Object.keys(limited.body).sort()).toEqual(['code', 'error', 'message', 'retry_after_seconds']);
      expect(limited.body.code).toBe('RATE_LIMITED_VERIFY');
      expect(limited.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('retry-after')).toBe(String(limited.body.retry_after_seconds));
      expect(limited.headers.get('x-ratelimit-limit')).toBe(String(VERIFY_LOOKUPS_PER_MINUTE));
    }
    expect((await t.json(known, { headers: { accept: 'application/json' }, ip: '10.66.0.2' })).body.verdict).toBe('valid');
  });
});

describe(`certificate key rotation on ${TEST_DATABASE_KIND}`, () => {
  it('signs with the first configured key, publishes every key, and still verifies certificates of a rotated-out key', async () => {
    const old = (await issue(t, keyA, await storedCalculation(t, keyA))).body;
    const [oldJwk] = (await t.json('/.well-known/jwks.json')).body.keys;
    const oldPem = createPublicKey({ key: oldJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    const newPem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // A second instance over the same database, configured with the new key first and the old one's public half kept.
    const rotated = await createTestApp({ CERT_SIGNING_KEY: `${newPem}${oldPem}` }, { database: t.app.services.db });
    try {
      const oldKid = t.app.services.certificateKeys.signingKid;
      const newKid = rotated.app.services.certificateKeys.signingKid;
      expect(newKid).not.toBe(oldKid);
      const jwks = await rotated.json('/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid, oldKid]);

      const verifyOn = (app: TestApp, url: string) =>
        app.json(new URL(url).pathname, { headers: { accept: 'application/json' }, ip: '10.55.0.1' });
      expect((await verifyOn(rotated, old.verify_url)).body).toMatchObject({ verdict: 'valid', key_id: oldKid });
      const fresh = (await issue(rotated, keyA, await storedCalculation(rotated, keyA))).body;
      expect((await verifyOn(rotated, fresh.verify_url)).body).toMatchObject({ verdict: 'valid', key_id: newKid });
      // An instance that does not know the new key cannot vouch for its certificates.
      expect((await verifyOn(t, fresh.verify_url)).body.verdict).toBe('altered');
    } finally {
      await rotated.close();
    }
  });
});
