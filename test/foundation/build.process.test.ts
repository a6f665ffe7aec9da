import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { exitOf, startServerProcess, ROOT } from '../support/process.ts';
import { referenceDatasetHashes } from '../../src/reference/load.ts';
import { buildGridStateForManifest } from '../../src/reference/grid-data.ts';
import { openDatabase } from '../../src/db/database.ts';
import { PGLITE_SEED_DIR } from '../../src/db/prepare.ts';

/** The server bundle's files: dist/main.js and its chunks. */
const bundleChunks = async () => (await readdir(path.join(ROOT, 'dist'))).filter((name) => /^main(-\w+)?\.js$/.test(name));

// What `npm start` and `lcf` run: the build in dist/ (`npm run build`, run by `npm install`).
describe('the compiled build', () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  const ADMIN_TOKEN = 'build-test-admin-token-0123456789abcdefghijkl';

  beforeAll(async () => {
    expect(existsSync(path.join(ROOT, 'dist/main.js')), 'dist/ is missing: run `npm run build`').toBe(true);
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-build-'));
    server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN }, { compiled: true });
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts a new embedded database from the seed: nothing to migrate or load', async () => {
    expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    const res = await fetch(`${server.url}/v1/reference/countries`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBeGreaterThanOrEqual(266);
    expect(server.output()).toContain('"msg":"listening"');
    expect(server.output()).not.toContain('applied migrations');
    expect(server.output()).not.toContain('loaded reference data');
  });

  it('draws a certificate PDF in its render thread', async () => {
    const admin = (p: string, body: unknown) =>
      fetch(`${server.url}/admin/v1${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const org = await admin('/orgs', { name: 'Build check', plan: 'business' });
    const { key } = await admin('/keys', { org_id: org.id });
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const footprint = (await (
      await fetch(`${server.url}/v1/footprint?brand=Dell&model=Latitude%205440&country=DE`, { headers: auth })
    ).json()) as {
      calculation_id: string;
    };
    const issued = await fetch(`${server.url}/v1/certificate`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ calculation_id: footprint.calculation_id }),
    });
    expect(issued.status).toBe(200);
    const { download_url } = (await issued.json()) as { download_url: string };
    const pdf = await fetch(`${server.url}${new URL(download_url).pathname}${new URL(download_url).search}`, { headers: auth });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('builds the SDK workspace (sdk/dist/) into the JavaScript a plain Node program imports as its package exports it', async () => {
    const { exports } = JSON.parse(await readFile(path.join(ROOT, 'sdk/package.json'), 'utf8'));
    const program = `import { createClient } from './sdk/${exports['.'].default}';
const { data } = await createClient({ baseUrl: process.argv[1] }).GET('/v1/reference/countries');
console.log(data.total);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', program, server.url], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(Number(run.stdout)).toBeGreaterThanOrEqual(266);
    expect(existsSync(path.join(ROOT, 'sdk', exports['.'].types))).toBe(true);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toBe(0);
  });

  it('records the hashes of the reference data and the grid state the sources build, which a restart takes instead of building them', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'dist/reference-data.json'), 'utf8')) as {
      data_sha256: string;
      datasets: unknown;
      grid: unknown;
    };
    expect(manifest.data_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.datasets, 'dist/ is older than src/ or data/: run `npm run build`').toEqual(referenceDatasetHashes());
    expect(manifest.grid, 'dist/ is older than src/ or data/: run `npm run build`').toEqual(
      JSON.parse(JSON.stringify(buildGridStateForManifest())),
    );
  });

  it('writes the server bundle as ASCII, so V8 holds each chunk at one byte a character', async () => {
    const chunks = await bundleChunks();
    expect(chunks.length).toBeGreaterThan(5);
    for (const name of chunks) {
      const text = await readFile(path.join(ROOT, 'dist', name), 'latin1');
      expect(/[^\0-\x7f]/.exec(text)?.index, name).toBeUndefined();
    }
  });

  it("reads Prisma's query compiler from dist/query-compiler.wasm instead of holding it as a base64 literal", async () => {
    // The compiler build the generated client imports (schema.prisma: compilerBuild).
    const client = await readFile(path.join(ROOT, 'src/generated/prisma/internal/class.ts'), 'utf8');
    const shipped = /import\("(@prisma\/client\/runtime\/query_compiler_\w+_bg\.postgresql\.wasm-base64\.mjs)"\)/.exec(client)?.[1];
    expect(shipped).toBeDefined();
    const { wasm } = (await import(shipped!)) as { wasm: string };
    const bytes = await readFile(path.join(ROOT, 'dist/query-compiler.wasm'));
    expect(bytes.equals(Buffer.from(wasm, 'base64'))).toBe(true);
    expect(WebAssembly.validate(bytes)).toBe(true);
    const chunks = await bundleChunks();
    for (const name of chunks) expect(await readFile(path.join(ROOT, 'dist', name), 'latin1'), name).not.toContain(wasm.slice(0, 64));
  });

  it("leaves zod's translations of its messages out of the bundle (368 KB of the modules a start loaded)", async () => {
    // `import { z } from 'zod'` takes zod's whole namespace, its 63 locales with it; `import * as z` lets
    // esbuild keep what is used: English messages only.
    const chunks = await bundleChunks();
    const locales = new Set<string>();
    for (const name of chunks) {
      for (const [, locale] of (await readFile(path.join(ROOT, 'dist', name), 'latin1')).matchAll(
        /^\/\/ node_modules\/zod\/v4\/locales\/([\w-]+)\.js$/gm,
      ))
        locales.add(locale!);
    }
    expect([...locales]).toEqual(['en']);
  });

  it('on a restart loads a dataset whose stored hash is not the one the build recorded', async () => {
    const db = new PGlite(path.join(dataDir, 'pglite'));
    await db.query(`UPDATE reference_datasets SET sha256 = 'outdated' WHERE name = 'regions'`);
    await db.close();
    const again = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN }, { compiled: true });
    try {
      expect((await fetch(`${again.url}/v1/reference/countries`)).status).toBe(200);
      expect(again.output()).toContain('"datasets":["regions"],"msg":"loaded reference data"');
    } finally {
      again.child.kill('SIGTERM');
      await exitOf(again.child);
    }
  });

  it('copies the seed, without template databases, beside a new data directory and renames it: a copy a stopped start left half-way is replaced', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'lcf-seed-'));
    try {
      await mkdir(path.join(parent, 'pglite.partial'));
      await writeFile(path.join(parent, 'pglite.partial', 'left-by-a-stopped-start'), '');
      const db = await openDatabase({ kind: 'pglite', dataDir: path.join(parent, 'pglite'), seed: PGLITE_SEED_DIR });
      try {
        expect(await db.prisma.product.count()).toBeGreaterThan(2000);
        // Only the database PGlite opens: the template databases are left out of the seed.
        const databases = await db.prisma.$queryRaw<{ datname: string }[]>`SELECT datname FROM pg_database ORDER BY datname`;
        expect(databases.map((d) => d.datname)).toEqual(['postgres']);
      } finally {
        await db.close();
      }
      expect(existsSync(path.join(parent, 'pglite.partial'))).toBe(false);
      expect(existsSync(path.join(parent, 'pglite', 'left-by-a-stopped-start'))).toBe(false);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('answers `lcf --help` from bin/lcf.js', () => {
    const help = spawnSync(process.execPath, ['bin/lcf.js', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage:\n {2}lcf quickstart \[--name NAME\] \[--plan PLAN\] \[--json\]\n {2}lcf admin org create/);
  });

  it("runs `npx lcf` from node_modules/.bin, without installing the project into npm's npx cache", async () => {
    // A bin of the project's own package.json would make npx install the project into its cache
    // (rerunning the postinstall build: 32 s the first time) and read the whole tree on every call
    // (2.3 s); the bin/ workspace's bin is linked into node_modules/.bin by `npm install`.
    const cache = await mkdtemp(path.join(tmpdir(), 'lcf-npm-cache-'));
    try {
      const help = spawnSync('npx', ['--cache', cache, '--ignore-scripts', 'lcf', '--help'], { cwd: ROOT, encoding: 'utf8' });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^usage:\n {2}lcf quickstart \[--name NAME\] \[--plan PLAN\] \[--json\]\n {2}lcf admin org create/);
      expect(existsSync(path.join(cache, '_npx'))).toBe(false);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
