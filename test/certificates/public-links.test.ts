import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { ExportWorker } from '../../src/exports/worker.ts';
import { bearer, storedCalculation } from './support.ts';

const run = promisify(execFile);
const EVIL = 'evil.example';
// The default allow-list (ALLOWED_HOSTS unset) of a server listening on all interfaces at port 3000.
const LISTEN = 'http://localhost:3000';

/** The QR codes of a PDF's pages, decoded from rendered images (zbarimg), and the PDF's text. */
async function readPdf(pdf: Buffer): Promise<{ qr: string[]; text: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lcf-links-'));
  try {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, pdf);
    await run('pdftoppm', ['-png', '-r', '150', file, path.join(dir, 'page')]);
    const pages = (await readdir(dir)).filter((name) => name.endsWith('.png')).map((name) => path.join(dir, name));
    // zbarimg exits 4 when a page has no code; what it found is on stdout either way.
    const qr = await run('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', ...pages]).then(
      (result) => result.stdout,
      (error: { code?: number; stdout?: string }) => (error.code === 4 ? error.stdout! : Promise.reject(error)),
    );
    const { stdout: text } = await run('pdftotext', ['-layout', file, '-']);
    return { qr: qr.trim().split('\n'), text };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A request over a real socket with the given Host and extra headers (fetch does not let one set Host). */
function rawGet(base: string, pathname: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${pathname}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ALLOWED_HOSTS and the listen address', () => {
  it('defaults to the listen address and the loopback names at PORT, and links other hosts to the listen address', () => {
    const all = loadConfig({ PORT: '8080' });
    expect(all.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]'].map((hostname) => ({ hostname, port: '8080' })));
    expect(all.listenOrigin).toBe('http://localhost:8080');
    const own = loadConfig({ HOST: '10.0.0.5', PORT: '80' });
    expect(own.allowedHosts.map((h) => `${h.hostname}:${h.port}`)).toEqual(['10.0.0.5:80', 'localhost:80', '127.0.0.1:80', '[::1]:80']);
    expect(own.listenOrigin).toBe('http://10.0.0.5:80');
    expect(loadConfig({ HOST: '::1' }).listenOrigin).toBe('http://[::1]:3000');
  });

  it('reads ALLOWED_HOSTS as hosts with or without a port, and names the entry that is no host', () => {
    expect(loadConfig({ ALLOWED_HOSTS: 'API.example.com, lcf.internal:8443,[::1]:80' }).allowedHosts).toEqual([
      { hostname: 'api.example.com', port: undefined },
      { hostname: 'lcf.internal', port: '8443' },
      { hostname: '[::1]', port: '80' },
    ]);
    for (const [value, reason] of [
      ['https://api.example.com', '"https://api.example.com" is not a host or host:port'],
      ['a.example,user@b.example', '"user@b.example" is not a host or host:port'],
      [' , ', 'expected one or more hosts'],
      ['exa mple.com', '"exa mple.com" is not a host or host:port'],
    ]) {
      expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(`invalid environment variable ALLOWED_HOSTS: ${reason}`);
    }
  });
});

describe(`links never name a host outside the allow-list, on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp;
  let key: string;
  let bi: string;
  /** A request addressed to `host` (the URL's host is the Host header the server received). */
  const at = (host: string, pathname: string, init: RequestInit = {}) => t.app.fetch(new Request(`http://${host}${pathname}`, init));
  const issueAt = async (host: string) => {
    const res = await at(host, '/v1/certificate', {
      method: 'POST',
      headers: bearer(key),
      body: JSON.stringify({ calculation_id: await storedCalculation(t, key) }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { id: string; certificate_number: string; verify_url: string; download_url: string };
  };

  beforeAll(async () => {
    // ALLOWED_HOSTS unset and TRUSTED_PROXY for the forwarded-header case: the configuration of a fresh install.
    t = await createTestApp({ ALLOWED_HOSTS: '', PORT: '3000', TRUSTED_PROXY: '127.0.0.1' });
    const org = await t.createOrg('enterprise', 'Links GmbH');
    key = (await t.createKey(org.id)).key;
    bi = (await t.createKey(org.id, { bi_enabled: true })).key;
  });
  afterAll(() => t.close());

  it('issues verify_url and download_url of the listen address for Host: evil.example, of the host itself when it is allowed', async () => {
    const evil = await issueAt(EVIL);
    expect(evil.verify_url).toBe(`${LISTEN}/verify/${evil.certificate_number}`);
    expect(evil.download_url).toBe(`${LISTEN}/v1/certificate?id=${evil.id}`);
    const own = await issueAt('127.0.0.1:3000');
    expect(own.verify_url).toBe(`http://127.0.0.1:3000/verify/${own.certificate_number}`);
    // The allowed host at another port is another host.
    expect((await issueAt('127.0.0.1:4000')).verify_url).toMatch(new RegExp(`^${LISTEN}/verify/`));

    const graphql = await at(EVIL, '/v1/graphql', {
      method: 'POST',
      headers: bearer(key),
      body: JSON.stringify({
        query: 'mutation($id: ID!) { issueCertificate(calculation_id: $id) { verify_url download_url } }',
        variables: { id: await storedCalculation(t, key) },
      }),
    });
    const issued = (await graphql.json()).data.issueCertificate;
    expect(issued.verify_url).toMatch(new RegExp(`^${LISTEN}/verify/LCF-`));
    expect(issued.download_url).toMatch(new RegExp(`^${LISTEN}/v1/certificate\\?id=`));
  });

  it('prints the listen address in the PDF QR code and text when the download came with Host: evil.example', async () => {
    const cert = await issueAt('localhost:3000');
    const res = await at(EVIL, `/v1/certificate?id=${cert.id}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    const { qr, text } = await readPdf(Buffer.from(await res.arrayBuffer()));
    expect(qr).toEqual([`${LISTEN}/verify/${cert.certificate_number}`]);
    expect(text).not.toContain(EVIL);
    // The verification page links itself and the JWKS the same way.
    const page = await (await at(EVIL, `/verify/${cert.certificate_number}`)).text();
    expect(page).toContain(`${LISTEN}/.well-known/jwks.json`);
    expect(page).not.toContain(EVIL);
  });

  it('ignores an X-Forwarded-Host outside the list even from a trusted proxy, and follows one inside it', async () => {
    const base = await t.listen();
    const cert = await issueAt('localhost:3000');
    const verifyPage = (headers: Record<string, string>) => rawGet(base, `/verify/${cert.certificate_number}`, headers);
    const forged = await verifyPage({ host: EVIL, 'x-forwarded-host': EVIL, 'x-forwarded-proto': 'https' });
    expect(forged.status).toBe(200);
    expect(forged.body).not.toContain(EVIL);
    expect(forged.body).toContain(`${LISTEN}/.well-known/jwks.json`);
    const direct = await verifyPage({ host: EVIL });
    expect(direct.body).toContain(`${LISTEN}/.well-known/jwks.json`);
    const proxied = await verifyPage({ host: 'backend:9999', 'x-forwarded-host': 'localhost:3000', 'x-forwarded-proto': 'https' });
    expect(proxied.body).toContain('https://localhost:3000/.well-known/jwks.json');
  });

  it('gives export download URLs, landing links and OData links of the listen address to Host: evil.example', async () => {
    const submitted = await at(EVIL, '/v1/org/export/jobs', {
      method: 'POST',
      headers: bearer(key),
      body: JSON.stringify({ scope: { include: ['organizations'] } }),
    });
    expect(submitted.status).toBe(202);
    const job = await submitted.json();
    // Poll and download URLs are paths on whichever host the client used.
    expect(job.poll_url).toBe(`/v1/org/export/jobs/${job.job_id}`);
    expect(job.download_url).toBe(`/v1/org/export/jobs/${job.job_id}/download`);
    const s = t.app.services;
    const worker = new ExportWorker({ db: s.db, scopes: s.scopes, storage: s.exportStorage, log: s.log, softwareVersion: '1.0.0' });
    expect(await worker.runOnce()).toBe(job.job_id);
    const download = await at(EVIL, `${job.download_url}`, { headers: { ...bearer(key), accept: 'application/json' } });
    expect((await download.json()).signed_url).toMatch(new RegExp(`^${LISTEN}/files/exports/`));
    const redirect = await at(EVIL, `${job.download_url}`, { headers: bearer(key) });
    expect(redirect.headers.get('location')).toMatch(new RegExp(`^${LISTEN}/files/exports/`));

    const landing = await (await at(EVIL, '/v1')).json();
    expect(Object.values(landing.links).every((link) => String(link).startsWith(`${LISTEN}/`))).toBe(true);
    const odata = await (await at(EVIL, '/v1/odata/Assets', { headers: bearer(bi) })).json();
    expect(odata['@odata.context']).toBe(`${LISTEN}/v1/odata/$metadata#Assets`);
  });

  it('uses PUBLIC_BASE_URL whatever the host', async () => {
    const pub = await createTestApp({ PUBLIC_BASE_URL: 'https://lcf.example.com/carbon/' }, { database: t.app.services.db });
    try {
      const res = await pub.app.fetch(
        new Request(`http://${EVIL}/v1/certificate`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ calculation_id: await storedCalculation(pub, key) }),
        }),
      );
      const cert = await res.json();
      expect(cert.verify_url).toBe(`https://lcf.example.com/carbon/verify/${cert.certificate_number}`);
      expect(cert.download_url).toBe(`https://lcf.example.com/carbon/v1/certificate?id=${cert.id}`);
    } finally {
      await pub.close();
    }
  });
});
