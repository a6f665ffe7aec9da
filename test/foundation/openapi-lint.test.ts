import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../support/process.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Issue 38, point 1: Redocly's recommended ruleset finds no error in the served document.

/** Warnings the document keeps, and why (docs/api.md, "OpenAPI and generated clients"). */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // GET /.well-known/jwks.json answers every request: it has no 4xx of its own (only `default`).
  'operation-4xx-response': 'GET /.well-known/jwks.json',
};

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'lcf-redocly-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

it('GET /v1/openapi.json passes @redocly/cli lint with the recommended ruleset: no error', async () => {
  const document = await t.request('/v1/openapi.json').then((r) => r.text());
  await writeFile(path.join(dir, 'openapi.json'), document);
  await writeFile(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  // The CLI exits 1 when it finds errors; its JSON report is on stdout either way.
  const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', 'openapi.json', '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((error: { stdout: string }) => error);
  const report = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  const problems = (severity: string) =>
    report.problems.filter((p) => p.severity === severity).map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(problems('error')).toEqual([]);
  expect(problems('warn').filter((p) => !(p.split(' ')[0]! in ACCEPTED_WARNINGS))).toEqual([]);
  expect(report.totals.warnings).toBe(Object.keys(ACCEPTED_WARNINGS).length);
});
