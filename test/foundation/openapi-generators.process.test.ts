import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { generate as orval } from 'orval';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportWorker } from '../../src/exports/worker.ts';
import { storedCalculation } from '../certificates/support.ts';
import { startFakeBlancco, type FakeBlancco } from '../support/fake-blancco.ts';
import { ROOT } from '../support/process.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Issue 38, point 2: the clients three generators make from the served document, each with the tool's
// defaults, call every operation of the document against a real server; every JSON answer matches the
// document's schema for its status, and binary answers arrive as binary (Blob) with their bytes.

/**
 * The arguments of each operation, as TypeScript source the programs embed (the generated types check
 * them), in the order the programs call them. `ctx` is the seeded organisation (Context below); `got(op,
 * 'a.0.b')` reads a text field of an earlier answer; `signed()` splits the export's signed URL. A new operation
 * of the document needs an entry here (`{}` when it takes no required input).
 */
const CALLS: Record<string, { path?: string; query?: string; body?: string }> = {
  referenceCountries: {},
  referenceCategories: {},
  footprint: { query: `{ brand: 'Dell', model: 'Latitude 5440', country: 'DE', ram_gb: 16 }` },
  savings: { query: `{ brand: 'Dell', model: 'Latitude 5440', country: 'DE' }` },
  refurbishment: { query: `{ brand: 'Dell', model: 'Latitude 5440', country: 'DE', grade: 'A' }` },
  search: { query: `{ q: 'Latitude' }` },
  footprintBatch: {
    body: `{ products: [{ brand: 'Dell', model: 'Latitude 5440', country: 'DE' }, { brand: 'HP', model: 'X', country: 'ZZ' }] }`,
  },
  identify: { body: `{ manufacturer: 'Dell Inc.', model_string: 'Latitude 5420' }` },
  importAssets: { body: `{ assets: [{ brand: 'Dell', model: 'Latitude 5440', serial_number: 'GEN-1', country: 'DE' }] }` },
  importAssetsCsv: { body: `{ csv: 'brand,model,serial_number,country\\nHP,EliteBook 840 G8,GEN-2,FR\\n' }` },
  assetPage: { query: `{ status: 'in_use', limit: 1 }` },
  asset: { path: `{ id: got('importAssets', 'assets.0.id') }` },
  issueCertificate: { body: `{ calculation_id: ctx.calculationId }` },
  certificatePdf: { query: `{ id: got('issueCertificate', 'id') }` },
  verifyCertificate: { path: `{ number: got('issueCertificate', 'certificate_number') }` },
  certificateKeys: {},
  revokeCertificate: { body: `{ id: got('issueCertificate', 'id') }` },
  report: { body: `{ type: 'sustainability_summary' }` },
  inventory: { query: `{ dateFrom: '2025-01-01', dateTo: '2025-12-31', method: 'linear' }` },
  organizationSettings: {},
  updateOrganizationSettings: { body: `{ hardware_accounting: 'purchased_goods' }` },
  createContractualInstrument: {
    body: `{ kind: 'energy_attribute_certificate', country: 'DE', valid_from: '2025-01-01', valid_to: '2025-12-31', coverage_share: 0.5 }`,
  },
  contractualInstruments: { query: `{ country: 'DE' }` },
  contractualInstrument: { path: `{ id: got('createContractualInstrument', 'id') }` },
  updateContractualInstrument: { path: `{ id: got('createContractualInstrument', 'id') }`, body: `{ label: 'Guarantees of origin 2025' }` },
  deleteContractualInstrument: { path: `{ id: got('createContractualInstrument', 'id') }` },
  createWebhookEndpoint: { body: `{ url: ctx.webhookUrl, events: ['org.export.job.completed'] }` },
  webhookEndpoints: {},
  rotateWebhookSecret: { path: `{ id: got('createWebhookEndpoint', 'id') }` },
  webhookDeliveries: {},
  deleteWebhookEndpoint: { path: `{ id: got('createWebhookEndpoint', 'id') }` },
  exportJobs: {},
  exportJob: { path: `{ id: ctx.completedJobId }` },
  exportJobDownload: { path: `{ id: ctx.completedJobId }` },
  exportFile: {
    path: `{ folder: signed().folder, name: signed().name }`,
    query: `{ expires: signed().expires, filename: signed().filename, signature: signed().signature }`,
  },
  submitExportJob: { body: `{}` },
  cancelExportJob: { path: `{ id: got('submitExportJob', 'job_id') }` },
  configureErasureConnection: { body: `{ base_url: ctx.blanccoUrl, api_key: ctx.blanccoKey }` },
  erasureConnection: {},
  syncErasureReports: { body: `{}` },
  erasureSyncRuns: {},
  deleteErasureConnection: {},
};

/** What the test seeds for each program: its own enterprise organisation and key, and the records the calls name. */
interface Context {
  base: string;
  key: string;
  calculationId: string;
  completedJobId: string;
  blanccoUrl: string;
  blanccoKey: string;
  webhookUrl: string;
}

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  method: string;
  path: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }>; headers?: Record<string, { required?: boolean }> }>;
}
interface Outcome {
  operationId: string;
  status: number;
  contentType: string | null;
  /** The names of the response's headers. */
  headers: string[];
  /** The parsed JSON body as the client returned it. */
  json?: unknown;
  /** A binary body: what the client returned it as, and its first bytes. */
  binary?: { kind: string; head: string };
}

const JSON_TYPE = 'application/json';
const MAGIC: Record<string, string> = { 'application/pdf': '%PDF-', 'application/zip': 'PK' };

let t: TestApp;
let fake: FakeBlancco;
let doc: { paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>> };
let operations: Operation[];
let dir: string;
let worker: ExportWorker;
/** The server the programs call (node:http on 127.0.0.1). */
let base: string;

beforeAll(async () => {
  t = await createTestApp({ ERASURE_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', BLANCCO_TIMEOUT_MS: '2000' });
  fake = await startFakeBlancco({ reports: [] });
  const s = t.app.services;
  worker = new ExportWorker({ db: s.db, scopes: s.scopes, storage: s.exportStorage, log: s.log, softwareVersion: '1.0.0' });
  base = await t.listen();
  doc = await (await fetch(`${base}/v1/openapi.json`)).json();
  operations = Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ ...op, method, path: p })));
  dir = await mkdtemp(path.join(tmpdir(), 'lcf-generators-'));
  // The programs import the generators' runtimes (openapi-fetch) from the project's node_modules.
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  await writeFile(path.join(dir, 'package.json'), '{"type": "module"}');
  await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(doc));
  await writeFile(path.join(dir, 'harness.ts'), HARNESS);
});
afterAll(async () => {
  await fake?.close();
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** An organisation with what the calls name: a stored calculation and a completed export. */
async function seed(): Promise<Context> {
  const org = await t.createOrg('enterprise', `Generated client ${randomUUID().slice(0, 8)}`);
  const { key } = await t.createKey(org.id);
  const calculationId = await storedCalculation(t, key);
  const submitted = await t.json('/v1/org/export/jobs', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': JSON_TYPE },
    body: '{}',
  });
  if (submitted.status !== 202) throw new Error(`export: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const completedJobId = submitted.body.job_id as string;
  for (let ran = await worker.runOnce(); ran !== completedJobId; ran = await worker.runOnce()) {
    if (ran === null) throw new Error(`export job ${completedJobId} was never claimed`);
  }
  // The program submits an export of its own: the plan's interval since this one has passed.
  await t.app.services.db.prisma.exportJob.update({
    where: { id: completedJobId },
    data: { created_at: new Date(Date.now() - 86_400_000) },
  });
  return { base, key, calculationId, completedJobId, blanccoUrl: fake.url, blanccoKey: fake.apiKey, webhookUrl: 'http://127.0.0.1:9/hook' };
}

/** The operations in the order of CALLS; an operation without an entry, or an entry without an operation, fails the test by name. */
function ordered(): (Operation & { call: (typeof CALLS)[string] })[] {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  expect(
    operations.map((op) => op.operationId).filter((id) => !(id in CALLS)),
    'operations without arguments in CALLS',
  ).toEqual([]);
  expect(
    Object.keys(CALLS).filter((id) => !byId.has(id)),
    'CALLS entries of no operation',
  ).toEqual([]);
  return Object.entries(CALLS).map(([id, call]) => ({ ...byId.get(id)!, call }));
}

/** Header parameters the document requires, with the one value each takes (Accept: application/json). */
const requiredHeaders = (op: Operation) =>
  Object.fromEntries(
    (op.parameters ?? [])
      .filter((p) => p.in === 'header' && p.required)
      .map((p) => [p.name, ((p.schema?.enum as string[]) ?? [p.schema?.default])[0]]),
  );
const headerSource = (op: Operation) => JSON.stringify(requiredHeaders(op));
const hasHeaders = (op: Operation) => Object.keys(requiredHeaders(op)).length > 0;
/** The success response's media type, when it is not JSON: the client must read it as binary. */
const binaryType = (op: Operation) =>
  Object.entries(op.responses)
    .flatMap(([status, r]) => (status.startsWith('2') ? Object.keys(r.content ?? {}) : []))
    .find((type) => type !== JSON_TYPE);

/** A program per generator: the same calls in each tool's own idiom. */
const GENERATORS: Record<string, { generate(): Promise<void>; program(ops: ReturnType<typeof ordered>): string }> = {
  'openapi-typescript + openapi-fetch': {
    async generate() {
      await mkdir(path.join(dir, 'openapi-fetch'));
      await writeFile(path.join(dir, 'openapi-fetch', 'api.ts'), astToString(await openapiTS(doc as never)));
    },
    program: (ops) => `
import createClient from 'openapi-fetch';
import type { paths } from './openapi-fetch/api.ts';
import { ctx, done, got, note, signed } from './harness.ts';

const client = createClient<paths>({ baseUrl: ctx.base, headers: { Authorization: \`Bearer \${ctx.key}\` } });
${ops
  .map((op) => {
    const params = [
      op.call.query && `query: ${op.call.query}`,
      op.call.path && `path: ${op.call.path}`,
      hasHeaders(op) && `header: ${headerSource(op)}`,
    ].filter(Boolean);
    const init = [
      params.length && `params: { ${params.join(', ')} }`,
      op.call.body && `body: ${op.call.body}`,
      binaryType(op) && `parseAs: 'blob'`,
    ].filter(Boolean);
    return `{
  const { data, error, response } = await client.${op.method.toUpperCase()}('${op.path}'${init.length ? `, { ${init.join(', ')} }` : ''});
  await note('${op.operationId}', response, data ?? error);
}`;
  })
  .join('\n')}
done();
`,
  },
  '@hey-api/openapi-ts (fetch client)': {
    async generate() {
      await heyApi({ input: path.join(dir, 'openapi.json'), output: path.join(dir, 'hey-api'), logs: { level: 'silent' } } as never);
    },
    program: (ops) => `
import { client } from './hey-api/client.gen';
import * as sdk from './hey-api/sdk.gen';
import { ctx, done, got, note, signed } from './harness.ts';

client.setConfig({ baseUrl: ctx.base, auth: ctx.key });
${ops
  .map((op) => {
    const options = [
      op.call.query && `query: ${op.call.query}`,
      op.call.path && `path: ${op.call.path}`,
      hasHeaders(op) && `headers: ${headerSource(op)}`,
      op.call.body && `body: ${op.call.body}`,
    ].filter(Boolean);
    return `{
  const { data, error, response } = await sdk.${op.operationId}({ ${options.join(', ')} });
  await note('${op.operationId}', response, data ?? error);
}`;
  })
  .join('\n')}
done();
`,
  },
  'orval (fetch client)': {
    async generate() {
      // orval's fetch client parses every body as JSON and builds URLs relative to the page; its documented
      // answer is a custom fetch (mutator): the server's origin, the key, and the body read by its Content-Type.
      await mkdir(path.join(dir, 'orval'));
      await writeFile(path.join(dir, 'orval', 'fetcher.ts'), ORVAL_FETCHER);
      await orval({
        input: { target: path.join(dir, 'openapi.json') },
        output: {
          target: path.join(dir, 'orval', 'api.ts'),
          client: 'fetch',
          override: { mutator: { path: path.join(dir, 'orval', 'fetcher.ts'), name: 'customFetch' } },
        },
      });
    },
    program: (ops) => `
import * as api from './orval/api.ts';
import { done, got, note, signed, ctx } from './harness.ts';

${ops
  .map((op) => {
    // orval's argument order: path parameters in path order, the body, the query parameters, then RequestInit.
    const pathNames = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const args = [
      ...(op.call.path ? pathNames.map((name) => `(${op.call.path}).${name}`) : []),
      ...(op.requestBody ? [op.call.body ?? '{}'] : []),
      ...((op.parameters ?? []).some((p) => p.in === 'query') ? [op.call.query ?? 'undefined'] : []),
      ...(hasHeaders(op) ? [`{ headers: ${headerSource(op)} }`] : []),
    ];
    return `{
  const answer = await api.${op.operationId}(${args.join(', ')});
  await note('${op.operationId}', answer, answer.data);
}`;
  })
  .join('\n')}
done();
`,
  },
};

/** The runtime every program shares: the seeded context, earlier answers, and what each call answered (written to LCF_OUT). */
const HARNESS = `
import { writeFileSync } from 'node:fs';

export const ctx = JSON.parse(process.env.LCF_CONTEXT ?? '{}') as {
  base: string; key: string; calculationId: string; completedJobId: string; blanccoUrl: string; blanccoKey: string; webhookUrl: string;
};
const answers: Record<string, unknown> = {};
const outcomes: unknown[] = [];

/** A text field of an earlier answer, by a dotted path: got('importAssets', 'assets.0.id'). */
export function got(operationId: string, field: string): string {
  const value = field.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], answers[operationId]);
  if (typeof value !== 'string') throw new Error(\`no \${field} in the answer of \${operationId}: \${JSON.stringify(answers[operationId])}\`);
  return value;
}

export function signed(): { folder: string; name: string; expires: string; filename: string; signature: string } {
  const url = new URL(got('exportJobDownload', 'signed_url'));
  const [folder, name] = url.pathname.split('/').slice(-2).map(decodeURIComponent) as [string, string];
  const query = (name: string) => url.searchParams.get(name) ?? '';
  return { folder, name, expires: query('expires'), filename: query('filename'), signature: query('signature') };
}

export async function note(operationId: string, response: { status: number; headers: Headers }, body: unknown): Promise<void> {
  const contentType = response.headers.get('content-type');
  const headers: string[] = [];
  response.headers.forEach((_value, name) => headers.push(name));
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    const bytes = Buffer.from(body instanceof Blob ? await body.arrayBuffer() : body);
    outcomes.push({ operationId, status: response.status, contentType, headers, binary: { kind: body.constructor.name, head: bytes.subarray(0, 5).toString('latin1') } });
    return;
  }
  answers[operationId] = body;
  outcomes.push({ operationId, status: response.status, contentType, headers, json: body });
}

export function done(): void {
  writeFileSync(process.env.LCF_OUT!, JSON.stringify(outcomes));
}
`;

/** orval's mutator: the generated function's URL and RequestInit in, { data, status, headers } out. */
const ORVAL_FETCHER = `
import { ctx } from '../harness.ts';

export async function customFetch<T>(url: string, init: RequestInit): Promise<T> {
  const response = await fetch(new URL(url, ctx.base), {
    ...init,
    headers: { Authorization: \`Bearer \${ctx.key}\`, ...(init.headers as Record<string, string>) },
  });
  const type = response.headers.get('content-type') ?? '';
  const text = type.includes('json') ? await response.text() : undefined;
  const data = text === undefined ? await response.blob() : text ? JSON.parse(text) : undefined;
  return { data, status: response.status, headers: response.headers } as T;
}
`;

const execFileAsync = promisify(execFile);

/** Compiles the programs with tsc --strict: the arguments and the answers' use type-check against each generated client. */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? path.relative(dir, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** Where each answer's schema is: the operation's response for the status (or `default`), its JSON media type. */
function schemaOf(op: Operation, status: number): string | undefined {
  const key = String(status) in op.responses ? String(status) : 'default';
  if (!op.responses[key]?.content?.[JSON_TYPE]) return undefined;
  const pointer = ['paths', op.path, op.method, 'responses', key, 'content', JSON_TYPE, 'schema'].map((s) =>
    s.replaceAll('~', '~0').replaceAll('/', '~1'),
  );
  return `openapi.json#/${pointer.join('/')}`;
}

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its plugin is the module's default export.
  (formats as unknown as { default: (ajv: Ajv2020) => void }).default(ajv);
  for (const format of ['int32', 'int64', 'float', 'double', 'binary']) ajv.addFormat(format, true);
  // Every $ref of the document is local (#/components/...): resolved against the document itself.
  ajv.addSchema(doc, 'openapi.json');
  return ajv;
}

describe('clients generated from /v1/openapi.json', () => {
  it.each(Object.keys(GENERATORS))(
    '%s: a program calling every operation compiles (tsc --strict), runs, and every answer matches the document',
    async (name) => {
      const generator = GENERATORS[name]!;
      await generator.generate();
      const ops = ordered();
      const file = path.join(dir, `${name.replace(/\W+/g, '-')}.ts`);
      await writeFile(file, generator.program(ops));
      expect(typeErrors([file])).toEqual([]);

      const context = await seed();
      const out = path.join(dir, `${path.basename(file)}.json`);
      await execFileAsync(process.execPath, ['--import', 'tsx', file], {
        cwd: dir,
        env: { ...process.env, LCF_CONTEXT: JSON.stringify(context), LCF_OUT: out },
        timeout: 120_000,
      });
      const outcomes = JSON.parse(await readFile(out, 'utf8')) as Outcome[];

      // Every operation of the document was called, once.
      expect(outcomes.map((o) => o.operationId).sort()).toEqual(operations.map((op) => op.operationId).sort());
      const ajv = validator();
      const mismatches: string[] = [];
      const byId = new Map(ops.map((op) => [op.operationId, op]));
      for (const outcome of outcomes) {
        const op = byId.get(outcome.operationId)!;
        const where = `${outcome.operationId} ${outcome.status}`;
        if (!(String(outcome.status) in op.responses)) mismatches.push(`${where}: a status the document does not list`);
        // The calls are meant to succeed: an error answer says an argument or the seed is wrong.
        if (outcome.status >= 400) mismatches.push(`${where}: ${JSON.stringify(outcome.json)}`);
        // The headers the document says this answer carries: X-Request-Id always, and those it requires.
        const documented = op.responses[String(outcome.status)]?.headers ?? {};
        for (const [header, declared] of Object.entries(documented)) {
          const expected = declared.required || header === 'X-Request-Id';
          if (expected && !outcome.headers.includes(header.toLowerCase())) mismatches.push(`${where}: no ${header} header`);
        }
        const media = (outcome.contentType ?? '').split(';')[0]!.trim();
        if (MAGIC[media]) {
          if (outcome.binary?.kind !== 'Blob')
            mismatches.push(`${where}: ${media} arrived as ${outcome.binary?.kind ?? typeof outcome.json}`);
          if (!outcome.binary?.head.startsWith(MAGIC[media])) mismatches.push(`${where}: ${media} starts with ${outcome.binary?.head}`);
          continue;
        }
        const schema = schemaOf(op, outcome.status);
        if (!schema) {
          mismatches.push(`${where}: no JSON schema for this status (${media})`);
          continue;
        }
        if (!ajv.validate({ $ref: schema }, outcome.json)) mismatches.push(`${where}: ${ajv.errorsText(ajv.errors)}`);
      }
      expect(mismatches).toEqual([]);
      // The binary answers: both PDFs and the archive, through the generated client.
      expect(outcomes.filter((o) => o.binary).map((o) => `${o.operationId} ${o.status}`)).toEqual(
        expect.arrayContaining(['certificatePdf 200', 'report 200', 'exportFile 200']),
      );
    },
  );
});
