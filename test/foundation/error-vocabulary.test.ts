import { readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERROR_CODES, RATE_LIMIT_CODES } from '../../src/errors/codes.ts';
import { EXPORT_FAILURE_CODES } from '../../src/exports/failures.ts';
import { createTestApp, type TestApp, TEST_ADMIN_TOKEN } from '../support/test-app.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Upper-case literals in src/ that are not error codes of ours: Node's error codes, a configuration variable's name and factor types. */
const NOT_ERROR_CODES = new Set([
  'ELECTRICITY_ADPE',
  'ELECTRICITY_PE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'HPE_HEADER_OVERFLOW',
  'LICENSE_FONT',
  'LOG_LEVEL',
  'PG_VERSION',
  'RESIDUAL_MIX',
]);

/** The sources that use codes: not the list of them (src/errors/codes.ts), which the tests compare with what the others use. */
async function sources(dir = path.join(ROOT, 'src')): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !file.includes(`${path.sep}generated${path.sep}`) && file !== path.join(ROOT, 'src/errors/codes.ts'));
  return Promise.all(files.map((file) => readFile(file, 'utf8')));
}

/** Every code the sources name, with the HTTP statuses that can be read beside it. */
function codesInSources(texts: readonly string[]): Map<string, Set<number>> {
  const codes = new Map<string, Set<number>>();
  const add = (code: string, status?: number) => {
    if (NOT_ERROR_CODES.has(code)) return;
    const statuses = codes.get(code) ?? new Set<number>();
    if (status !== undefined) statuses.add(status);
    codes.set(code, statuses);
  };
  const CODE = `'([A-Z]+(?:_[A-Z]+)+)'`;
  for (const text of texts) {
    for (const [, code] of text.matchAll(new RegExp(CODE, 'g'))) add(code!);
    // new ApiError(404, 'X', …), consoleError(502, 'X', …), [431, 'X', …] and { 404: ['X', …] }
    for (const [, status, code] of text.matchAll(new RegExp(`\\b([1-5]\\d\\d)(?:,|:\\s*\\[)\\s*${CODE}`, 'g'))) add(code!, Number(status));
    // { code: 'X', http: { status: 400 } } (GraphQL plugins' own errors)
    for (const [, code, status] of text.matchAll(new RegExp(`code:\\s*${CODE},\\s*http:\\s*\\{\\s*status:\\s*(\\d{3})`, 'g')))
      add(code!, Number(status));
    for (const [, code] of text.matchAll(new RegExp(`\\bforbidden\\(\\s*${CODE}`, 'g'))) add(code!, 403);
    for (const [, code] of text.matchAll(new RegExp(`\\bunauthorized\\(\\s*${CODE}`, 'g'))) add(code!, 401);
    // The first argument of new RateLimitError(…), a ternary of two codes included.
    for (const [, first] of text.matchAll(/new RateLimitError\(\s*((?:[^,']|'[^']*')*),/g)) {
      for (const [, code] of first!.matchAll(new RegExp(CODE, 'g'))) add(code!, 429);
    }
  }
  return codes;
}

/** docs/errors.md: the rows of its Codes table (status, codes, whether it is ever sent) and every code named anywhere in it. */
function documentedCodes(markdown: string) {
  const table = markdown.slice(markdown.indexOf('## Codes'));
  const rows = [...table.matchAll(/^\| (\d{3}) \| ([^|]+) \| ([^|]*)\|/gm)].map(([, status, cell, when]) => ({
    status: Number(status),
    codes: [...cell!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!),
    sent: !when!.trim().startsWith('never sent'),
  }));
  const named = new Set([...markdown.matchAll(/`([A-Z]+(?:_[A-Z]+)+)`/g)].map((m) => m[1]!));
  return { rows, named };
}

describe('docs/errors.md against the code', async () => {
  const codes = codesInSources(await sources());
  const { rows, named } = documentedCodes(await readFile(path.join(ROOT, 'docs/errors.md'), 'utf8'));
  const tableStatuses = (code: string) => rows.filter((row) => row.codes.includes(code)).map((row) => row.status);

  it('finds the codes in the sources (the extraction itself works)', () => {
    expect(codes.get('ROUTE_NOT_FOUND')).toEqual(new Set([404]));
    expect(codes.get('RATE_LIMITED_DAY')).toEqual(new Set([429]));
    expect(codes.get('PLAN_TOO_LOW')).toEqual(new Set([403]));
    expect(codes.size).toBeGreaterThan(60);
  });

  it('documents every code of the sources', () => {
    expect([...codes.keys()].filter((code) => !named.has(code)).sort()).toEqual([]);
  });

  it('lists every code at the status the code answers it with', () => {
    const wrong = [...codes].flatMap(([code, statuses]) =>
      [...statuses].filter((status) => !tableStatuses(code).includes(status)).map((status) => `${status} ${code}`),
    );
    expect(wrong.sort()).toEqual([]);
  });

  it('has the codes of the sources in src/errors/codes.ts, the list ApiError takes and the OpenAPI enums are made of', () => {
    // Besides the codes of error answers: the one logged only, and the codes of failed jobs and runs (states, not HTTP errors).
    const states = ['CLIENT_CLOSED_REQUEST', ...EXPORT_FAILURE_CODES, 'ERASURE_SYNC_INTERRUPTED'];
    const listed = new Set<string>([...API_ERROR_CODES, ...RATE_LIMIT_CODES, ...states]);
    expect([...codes.keys()].filter((code) => !listed.has(code)).sort()).toEqual([]);
    expect([...RATE_LIMIT_CODES].sort()).toEqual(
      rows
        .filter((row) => row.status === 429)
        .flatMap((row) => row.codes)
        .sort(),
    );
  });

  it('lists no code the sources do not have, in status order', () => {
    expect(rows.flatMap((row) => row.codes).filter((code) => !codes.has(code))).toEqual([]);
    const statuses = rows.map((row) => row.status);
    expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
  });
});

describe('one error vocabulary over HTTP', () => {
  let t: TestApp;
  let key: string;
  const keyed = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  const post = (pathname: string, body: string, headers: Record<string, string> = {}) =>
    t.json(pathname, keyed({ method: 'POST', body, headers }));
  const GRAPHQL_WORDING = /Variable "\$|cannot represent|does not exist in|Did you mean|Expected type|is not defined by type/;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.createKey((await t.createOrg('enterprise')).id)).key;
  });
  afterAll(() => t.close());

  it('answers a body that is not JSON with 400 INVALID_JSON on every kind of POST route', async () => {
    const routes: [string, Record<string, string>?][] = [
      ['/v1/footprint/batch'],
      ['/v1/identify'],
      ['/v1/assets'],
      ['/v1/webhooks/endpoints'],
      ['/v1/org/export/jobs'],
      ['/v1/report'],
      ['/admin/v1/orgs', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }],
    ];
    for (const [pathname, headers] of routes) {
      const res = await post(pathname, '{"products": [', headers);
      expect([pathname, res.status, res.body]).toEqual([
        pathname,
        400,
        { error: expect.any(String), code: 'INVALID_JSON', details: expect.stringMatching(/^body: /) },
      ]);
    }
    const graphql = await post('/v1/graphql', '{"query": ');
    expect([graphql.status, graphql.body.errors[0].extensions.code]).toEqual([400, 'INVALID_JSON']);
  });

  it('names the field in the service’s words where GraphQL would have answered', async () => {
    const cases: [string, RequestInit, string][] = [
      ['/v1/footprint?model=x&country=DE', keyed(), 'brand: is required'],
      [
        '/v1/footprint?brand=Dell&model=x&country=DE&storage_type=flash',
        keyed(),
        "storage_type: must be one of emmc, hdd, nvme, ssd, got 'flash'",
      ],
      ['/v1/footprint?brand=Dell&brand=HP&model=x&country=DE', keyed(), 'brand: must be given once, as brand=value'],
      ['/v1/org/export/jobs?limit=x', keyed(), "limit: must be an integer, got 'x'"],
      ['/v1/org/export/jobs', keyed({ method: 'POST', body: '{"format": "tar"}' }), "format: must be one of zip, got 'tar'"],
      ['/v1/identify', keyed({ method: 'POST', body: '{"brand": ["Dell"]}' }), 'brand: must be a string, got an array'],
      [
        '/v1/certificate',
        keyed({ method: 'POST', body: '{"calculation_id": true}' }),
        'calculation_id: must be a string or an integer, got true',
      ],
      ['/v1/footprint/batch', keyed({ method: 'POST', body: '{"products": "x"}' }), "products: must be an array, got 'x'"],
      // A batch item GraphQL would refuse is that item's error, in the same words (test/footprint/footprint-api.test.ts).
    ];
    for (const [pathname, init, details] of cases) {
      const res = await t.json(pathname, init);
      const field = details.slice(0, details.indexOf(':'));
      expect([pathname, res.status, res.body]).toEqual([
        pathname,
        400,
        { error: `Invalid parameter '${field}'`, code: 'INVALID_PARAMETER', details },
      ]);
      expect(JSON.stringify(res.body)).not.toMatch(GRAPHQL_WORDING);
    }
  });

  it('accepts grade and other enumerations in any case over REST; GraphQL keeps its own error format', async () => {
    const refurbishment = (grade: string) =>
      t.json(`/v1/refurbishment?brand=Dell&model=Latitude+5440&country=de&grade=${grade}&storage_type=SSD`, keyed());
    const [lower, upper] = [await refurbishment('a'), await refurbishment('A')];
    expect([lower.status, lower.body.grade, lower.body.grade_label]).toEqual([200, 'A', 'Like New']);
    expect(lower.body.net_savings_kg).toBe(upper.body.net_savings_kg);
    const unknown = await refurbishment('d');
    expect([unknown.status, unknown.body.details]).toEqual([400, "grade: must be one of A, B, C, got 'd'"]);

    const graphql = await t.graphql(
      'query ($grade: RefurbishmentGrade!) { refurbishment(brand: "Dell", model: "x", country: "DE", grade: $grade) { grade } }',
      { grade: 'a' },
      key,
    );
    expect(graphql.status).toBe(400);
    expect(graphql.body.errors[0].extensions).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: "grade: must be one of the RefurbishmentGrade values, got 'a'",
    });
  });

  it('states the codes of docs/errors.md as the enums of ApiError.code and RateLimitError.code in /v1/openapi.json', async () => {
    const { rows } = documentedCodes(await readFile(path.join(ROOT, 'docs/errors.md'), 'utf8'));
    const sent = (limit: boolean) =>
      [...new Set(rows.filter((row) => row.sent && (row.status === 429) === limit).flatMap((row) => row.codes))].sort();
    const { body: doc } = await t.json('/v1/openapi.json');
    const schemas = doc.components.schemas;
    const enumOf = (error: string) => schemas[schemas[error].properties.code.$ref.split('/').pop()].enum;
    expect([...enumOf('ApiError')].sort()).toEqual(sent(false));
    expect([...enumOf('RateLimitError')].sort()).toEqual(sent(true));
  });

  it('sends the reason phrase on every status line', async () => {
    const base = await t.listen();
    const statusLine = (pathname: string, method = 'GET', headers: Record<string, string> = {}, body?: string) =>
      new Promise<string>((resolve, reject) => {
        const request = httpRequest(`${base}${pathname}`, { method, headers }, (res) => {
          res.resume();
          resolve(`${res.statusCode} ${res.statusMessage}`);
        });
        request.on('error', reject);
        request.end(body);
      });
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    expect(await statusLine('/v1/reference/countries')).toBe('200 OK');
    expect(await statusLine('/admin/v1/orgs', 'POST', admin, '{"name": "Reason", "plan": "pro"}')).toBe('201 Created');
    expect(await statusLine('/v1/footprint?country=DE')).toBe('400 Bad Request');
    expect(await statusLine('/v1/assets', 'POST', { authorization: 'Bearer nope' }, '{}')).toBe('401 Unauthorized');
    expect(await statusLine('/v1/no-such-route')).toBe('404 Not Found');
    expect(await statusLine('/v1/reference/countries', 'DELETE')).toBe('405 Method Not Allowed');
  });
});
