import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, ROOT, runCli, startServerProcess } from '../support/process.ts';

// README.md's "Get a key", followed as written on a new server in a fresh data directory (install excluded).
describe('the quick start: from a new server to a keyed footprint in one command', () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-quickstart-'));
    server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN: '' });
  });
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    if (server) await exitOf(server.child);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the README gives the one command', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Get a key'), readme.indexOf('## First calls'));
    expect(section).toContain('```sh\nnpx lcf quickstart\n```');
  });

  it("the new server's log says where its admin token is and names the command", async () => {
    const deadline = Date.now() + 10_000;
    while (!server.output().includes('no API key yet') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('no API key yet'));
    expect(JSON.parse(line!)).toMatchObject({ admin_token_file: path.join(dataDir, 'admin-token'), first_key: 'npx lcf quickstart' });
  });

  it("`lcf quickstart` prints a key and a first call that answers with the organisation's calculation", async () => {
    // lcf finds the token through the server's DATA_DIR and the server through LCF_URL, as the README says.
    const run = await runCli(['quickstart'], { DATA_DIR: dataDir, LCF_URL: server.url, ADMIN_TOKEN: '' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^Created organisation "Quickstart" \(enterprise, [0-9a-f-]{36}\) and an API key for it:\n\n {2}svc_live_\w+\n/,
    );
    const curl = run.stdout.split('\n').find((l) => l.trim().startsWith('curl '))!;
    const [, header, url] = /^\s*curl -H '([^']+)' '([^']+)'$/.exec(curl)!;
    const [name, value] = header!.split(': ');
    const answer = await fetch(url!, { headers: { [name!]: value! } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { total_kg_co2e: number; calculation_id: string | null };
    expect(body.total_kg_co2e).toBeGreaterThan(0);
    expect(body.calculation_id).toMatch(/^[0-9a-f-]{36}$/); // a keyed answer: stored for the new organisation
  });

  it('says what to do when the server cannot be found or its token is not there', async () => {
    const away = await runCli(['quickstart'], { DATA_DIR: dataDir, LCF_URL: 'http://127.0.0.1:9', ADMIN_TOKEN: '' });
    expect([away.code, away.stderr.trim()]).toEqual([
      1,
      expect.stringMatching(
        /^lcf: cannot reach the server at http:\/\/127\.0\.0\.1:9 \(.*\): start it with npm start, or set LCF_URL to its address$/,
      ),
    ]);
    const elsewhere = await runCli(['quickstart'], { DATA_DIR: path.join(dataDir, 'none'), LCF_URL: server.url, ADMIN_TOKEN: '' });
    expect([elsewhere.code, elsewhere.stderr.trim()]).toEqual([
      1,
      `lcf: no admin token in ${path.join(dataDir, 'none', 'admin-token')}: start the server (npm start) once, which writes it, or set ADMIN_TOKEN (and DATA_DIR to the server's, if it uses another)`,
    ]);
  });
});
