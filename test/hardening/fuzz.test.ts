import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServerProcess } from '../support/process.ts';
import { rawRequest } from '../support/raw-request.ts';
import { openTestDatabase, TEST_DATABASE_KIND } from '../support/database.ts';
import { TEST_ADMIN_TOKEN, UNLIMITED } from '../support/test-app.ts';

/**
 * Property-based fuzzing of the running server (issue 9): generated hostile requests over every
 * REST route (read from the server's own OpenAPI document), GraphQL, the console and the admin
 * API. Every answer must be below 500, an error must carry a JSON body with a code (the console's
 * HTML pages excepted), no answer may take a second, and /healthz, polled throughout, must keep
 * answering within 200 ms. FUZZ_SECONDS bounds the run (default 30); FUZZ_SEED replays one.
 * The server's RSS (its own process, /proc VmRSS) is printed at the end, and again after
 * FUZZ_IDLE_SECONDS without traffic when that is set (issue 39; give vitest a --testTimeout to match).
 */
const FUZZ_MS = Number(process.env.FUZZ_SECONDS ?? 30) * 1000;
const SLOWEST_MS = 1_000;
const HEALTHZ_MS = 200;
const IDLE_MS = Number(process.env.FUZZ_IDLE_SECONDS ?? 0) * 1000;
/** The server process's resident memory in MB (not the test process's: the server is a child). */
const serverRssMb = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The names a 400 answer may name at the start of its details: the route's parameters and whatever unknown ones were sent. */
  fields?: string[];
}

// ------------------------------------------------------------------------------------------ values

const LONG = [100, 1_000, 10_000, 100_000];
const hostileText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'HP',
      'Dell',
      'Lenovo',
      'DE',
      'us-ca',
      'FR',
      'laptop',
      'monitor',
      'Latitude 5440',
      'EliteBook 840 G9',
      'A',
      'B',
      '2026-01-31',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\ud800', '\udc00', '\u001b', '\u007f', '\u202e', '\u200b', '%', '"', "'", '\\', '\n', 'é', '💻'),
      maxLength: 12,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "' OR 1=1 --",
      '%ZZ',
      '%00',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell lookup, sent as plain text on purpose
      '${jndi:ldap://127.0.0.1/a}',
      "=cmd|' /C calc'!A0",
      '../../etc/passwd',
      '<script>alert(1)</script>',
      'NaN',
      '-1e309',
      '1e400',
      '__proto__',
      'constructor',
      '{"a":1}',
      'null',
      '',
      ' ',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...LONG), fc.constantFrom('X', 'ab ', '9', '\u0000'))
      .map(([n, s]) => s.repeat(Math.ceil(n / s.length))),
  },
);
const hostileNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 1));
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileText, { maxLength: 5 }) },
);

/** Names no route declares, near misses of declared ones among them. */
const unknownName = fc.constantFrom('ramgb', 'modle', 'Brand', 'limit_', 'x', '__proto__', 'constructor', '$top');
/** A JSON value nested `depth` deep, written as text: JSON.stringify would itself run out of stack. */
const deepJson = fc
  .tuple(fc.integer({ min: 30, max: 8_000 }), fc.constantFrom(['[', ']'], ['{"a":', '}'], ['[{"a":', '}]']))
  .map(([depth, [open, close]]) => `${open.repeat(depth)}1${close.repeat(depth)}`);

/** The top-level object of a JSON body, or none. */
const parsedObject = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** Percent-encoding that also carries lone surrogates, as the invalid UTF-8 (CESU) a hostile client would send. */
const encode = (value: string) => encodeURIComponent(value.replace(/\p{Cs}/gu, '\uFFFD')).replaceAll('%EF%BF%BD', '%ED%A0%80');

// ----------------------------------------------------------------------------------- the server

interface OpenApiOperation {
  parameters?: { name: string; in: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string; items?: { $ref?: string } }> } }> };
}

describe(`fuzzing every interface on ${TEST_DATABASE_KIND}`, () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServerProcess>>;
  let db: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  const keys: Record<string, string> = {};
  let assetId = '00000000-0000-4000-8000-000000000000';
  const instrumentIds: string[] = [];
  let restRoutes: { method: string; path: string; operation: OpenApiOperation }[] = [];
  let inputFields: Record<string, string[]> = {};

  const admin = async (method: string, p: string, body: unknown) => {
    const res = await fetch(`${server.url}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, string>;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-fuzz-'));
    if (TEST_DATABASE_KIND === 'postgres') db = await openTestDatabase();
    const redis: Record<string, string> = process.env.TEST_REDIS_URL
      ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: `lcf-fuzz:${Date.now()}:` }
      : {};
    server = await startServerProcess(
      {
        DATA_DIR: dataDir,
        DATABASE_URL: db?.url ?? '',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        LOG_LEVEL: 'warn',
        QUOTA_LIMITS: UNLIMITED,
        ...redis,
      },
      // FUZZ_COMPILED=1: the build in dist/ (`node scripts/build.js` first), as `npm start` runs it.
      { compiled: process.env.FUZZ_COMPILED === '1' },
    );
    for (const plan of ['free', 'pro', 'enterprise']) {
      const org = await admin('POST', '/orgs', { name: `Fuzz ${plan}`, plan });
      keys[plan] = (await admin('POST', '/keys', { org_id: org.id! })).key!;
      if (plan === 'enterprise') keys.test = (await admin('POST', '/keys', { org_id: org.id!, environment: 'test' })).key!;
    }
    const imported = await fetch(`${server.url}/v1/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.enterprise}`, 'content-type': 'application/json' },
      body: JSON.stringify({ assets: [{ brand: 'HP', model: 'EliteBook 840 G9', serial_number: 'FUZZ-1', country: 'DE' }] }),
    });
    assetId = ((await imported.json()) as { assets: { id: string }[] }).assets[0]?.id ?? assetId;
    // Instruments to read, change and delete: a supplier-specific factor and a certificate.
    for (const instrument of [
      { kind: 'supplier_specific', country: 'DE', valid_from: '2025-01-01', valid_to: '2025-12-31', emission_factor_kg_per_kwh: 0.3 },
      { kind: 'energy_attribute_certificate', country: 'FR', valid_from: '2025-01-01', valid_to: '2025-06-30', coverage_share: 0.5 },
    ]) {
      const created = await fetch(`${server.url}/v1/inventory/instruments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.enterprise}`, 'content-type': 'application/json' },
        body: JSON.stringify(instrument),
      });
      instrumentIds.push(((await created.json()) as { id: string }).id);
    }
    // The sandbox of a test key is provisioned on its first use (seconds): done before timing answers.
    await fetch(`${server.url}/v1/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.test}`, 'content-type': 'application/json' },
      body: '{"query":"{ organization { id } }"}',
    });
    const openapi = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    // The /v1 API (the document also lists the public verification, JWKS and signed-link routes).
    restRoutes = Object.entries(openapi.paths)
      .filter(([p]) => p.startsWith('/v1/'))
      .flatMap(([p, ops]) => Object.entries(ops).map(([method, operation]) => ({ method: method.toUpperCase(), path: p, operation })));
    inputFields = Object.fromEntries(
      Object.entries(openapi.components.schemas).map(([name, s]) => [name, Object.keys(s.properties ?? {})]),
    );
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  // ----------------------------------------------------------------------------- request shapes

  const auth = () =>
    fc.constantFrom<() => Record<string, string>>(
      () => ({}),
      () => ({ authorization: `Bearer ${keys.enterprise}` }),
      () => ({ authorization: `Bearer ${keys.free}` }),
      () => ({ authorization: `Bearer ${keys.pro}` }),
      () => ({ authorization: `Bearer ${keys.test}` }),
      () => ({ authorization: 'Bearer svc_live_not-a-key' }),
      () => ({ authorization: `Bearer ${'k'.repeat(4_000)}` }),
      () => ({ authorization: 'Basic Og==' }),
    );

  // What an HTTP client can put in a header: visible ASCII and spaces, empty, or far beyond any limit.
  const headerText = fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 300, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }) },
    { weight: 1, arbitrary: fc.constantFrom('', 'application/json', 'k'.repeat(5_000)) },
  );

  const query = (entries: [string, unknown][]) =>
    entries.length ? `?${entries.map(([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&')}` : '';

  const restRequest = () =>
    fc.integer({ min: 0, max: 10_000 }).chain((pick) => {
      const route = restRoutes[pick % restRoutes.length]!;
      const params = route.operation.parameters ?? [];
      const bodyProps = route.operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      const item = (ref?: string) => {
        const fields = inputFields[ref?.split('/').pop() ?? ''] ?? [];
        return fc.dictionary(fc.constantFrom(...(fields.length ? fields : ['x'])), hostileJson, { maxKeys: 6 });
      };
      const bodyValue = fc.record(
        Object.fromEntries(
          Object.entries(bodyProps).map(([name, prop]) => [
            name,
            prop.type === 'array' ? fc.oneof(fc.array(item(prop.items?.$ref), { maxLength: 4 }), hostileJson) : hostileJson,
          ]),
        ),
        { requiredKeys: [] },
      );
      return fc
        .record({
          auth: auth(),
          query: fc
            .subarray(params.filter((p) => p.in === 'query'))
            .chain((chosen) => fc.tuple(...chosen.map((p) => fc.tuple(fc.constant(p.name), hostileJson))))
            .chain((entries) =>
              fc.oneof(
                { weight: 5, arbitrary: fc.constant(entries) },
                { weight: 1, arbitrary: fc.tuple(unknownName, hostileJson).map((extra) => [...entries, extra]) },
              ),
            ),
          // Declared header parameters (Idempotency-Key, the download's Accept) with any value a client can send.
          headerValues: fc
            .subarray(params.filter((p) => p.in === 'header'))
            .chain((chosen) => fc.tuple(...chosen.map((p) => fc.tuple(fc.constant(p.name), headerText)))),
          pathValue: fc.oneof(fc.constant(assetId), hostileText),
          body: fc.oneof(
            { weight: 6, arbitrary: bodyValue.map((b) => JSON.stringify(b)) },
            {
              weight: 1,
              arbitrary: fc.tuple(bodyValue, unknownName, hostileJson).map(([b, name, value]) => JSON.stringify({ ...b, [name]: value })),
            },
            {
              weight: 1,
              arbitrary: fc
                .tuple(fc.constantFrom(...Object.keys(bodyProps), 'x'), deepJson)
                .map(([name, deep]) => `{${JSON.stringify(name)}: ${deep}}`),
            },
            { weight: 1, arbitrary: fc.constantFrom('null', '[]', '"text"', '{', '{"products": null}', '', '\u0000') },
            { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 50 }) },
          ),
          contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
        })
        .map(
          ({ auth, query: q, headerValues, pathValue, body, contentType }): FuzzRequest => ({
            method: route.method,
            path: route.path.replace(/\{\w+\}/g, encode(pathValue)) + query(q),
            headers: { ...Object.fromEntries(headerValues), ...auth(), ...(contentType ? { 'content-type': contentType } : {}) },
            body: route.method === 'GET' ? undefined : body,
          }),
        );
    });

  const templates = readdirSync(path.join(ROOT, 'templates')).map((f) => readFileSync(path.join(ROOT, 'templates', f), 'utf8'));
  const nested = (depth: number): string => (depth === 0 ? 'name' : `fields { type { ${nested(depth - 1)} } }`);
  const graphqlDocument = fc.oneof(
    fc.constantFrom(...templates),
    fc.constantFrom(
      '{ organization { id name plan asset_count total_kg_co2e } }',
      '{ assets(first: 100) { edges { cursor node { id brand product { name } active_calculation { total_kg_co2e } } } pageInfo { endCursor } } }',
      `{ __schema { types { ${nested(12)} } } }`,
      `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: __typename`).join(' ')} }`,
      'query { ...A } fragment A on Query { ...A }',
      'mutation { simulateRefurbish(assetIds: []) { delta_kg_co2e } }',
      '{',
      '',
    ),
    hostileText.map((s) => `{ factorByRegion(regionCode: ${JSON.stringify(s)}) { value unit } }`),
    hostileText.map((s) => `{ asset(id: ${JSON.stringify(s)}) { id } }`),
    hostileText.map((s) => `{ assets(first: 5, after: ${JSON.stringify(s)}) { edges { node { id } } } }`),
    fc.integer({ min: -5, max: 100_000 }).map((n) => `{ assets(first: ${n}) { totalCount } }`),
    hostileText,
  );
  const graphqlRequest = () =>
    fc
      .record({
        auth: auth(),
        document: graphqlDocument,
        variables: fc.oneof(
          fc.dictionary(fc.constantFrom('id', 'regionCode', 'assetIds', 'atDate', 'after', 'first', 'x'), hostileJson, { maxKeys: 4 }),
          hostileJson,
        ),
        get: fc.boolean(),
        rawBody: fc.option(
          fc.oneof(hostileText, fc.constantFrom('null', '[]', '{"query": 1}', '{"query": "{__typename}", "variables": "x"}')),
          { freq: 6 },
        ),
        rawParam: fc.option(fc.constantFrom('variables', 'extensions', 'operationName', 'documentId'), { freq: 4 }),
        rawParamValue: hostileText,
        contentType: fc.constantFrom(
          'application/json',
          'application/json',
          'application/graphql-response+json',
          'text/plain',
          'multipart/form-data; boundary=x',
        ),
      })
      .map(({ auth, document, variables, get, rawBody, rawParam, rawParamValue, contentType }): FuzzRequest => {
        // A persisted-document id stands instead of the query text.
        const params: Record<string, unknown> = rawParam === 'documentId' ? { variables } : { query: document, variables };
        if (rawParam) params[rawParam] = rawParamValue;
        if (get) {
          return { method: 'GET', path: `/v1/graphql${query(Object.entries(params))}`, headers: { ...auth(), accept: 'application/json' } };
        }
        return {
          method: 'POST',
          path: '/v1/graphql',
          headers: { ...auth(), 'content-type': contentType },
          body: rawBody ?? JSON.stringify(params),
        };
      });

  const consoleRequest = () =>
    fc
      .record({
        route: fc.constantFrom(
          '/console',
          '/console/login',
          '/console/logout',
          '/console/keys',
          '/console/keys/ID/revoke',
          '/console/dashboard',
          '/console/dashboard/certificates/ID/revoke',
          '/console/dashboard/exports/ID/download',
          '/console/nope',
        ),
        method: fc.constantFrom('GET', 'POST', 'POST', 'DELETE'),
        id: hostileText,
        origin: fc.constantFrom<Record<string, string>>(
          {},
          { 'sec-fetch-site': 'same-origin' },
          { origin: 'https://evil.example' },
          { origin: 'null' },
        ),
        contentType: fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/json',
          'text/plain',
          'multipart/form-data; boundary=zz',
          '',
        ),
        fields: fc.dictionary(fc.constantFrom('key', 'name', 'environment', 'x'), hostileText, { maxKeys: 3 }),
        rawBody: fc.option(
          fc.oneof(hostileText, fc.constantFrom('--zz\r\nContent-Disposition: form-data; name="key"\r\n\r\nabc', '{"key": 1}')),
          { freq: 3 },
        ),
        cookie: fc.constantFrom<Record<string, string>>(
          {},
          { cookie: 'lcf_console=garbage' },
          { cookie: `lcf_console=${'x'.repeat(2_000)}` },
        ),
      })
      .map(
        ({ route, method, id, origin, contentType, fields, rawBody, cookie }): FuzzRequest => ({
          method,
          path: route.replace('ID', encode(id)),
          headers: { ...origin, ...cookie, ...(contentType ? { 'content-type': contentType } : {}) },
          body: method === 'GET' ? undefined : (rawBody ?? new URLSearchParams(fields).toString()),
        }),
      );

  const adminRequest = () =>
    fc
      .record({
        route: fc.constantFrom('/admin/v1/orgs', '/admin/v1/orgs/ID', '/admin/v1/keys', '/admin/v1/keys/ID', '/admin/v1/nope'),
        method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
        id: hostileText,
        token: fc.constantFrom(TEST_ADMIN_TOKEN, TEST_ADMIN_TOKEN, 'wrong-token', ''),
        body: fc.oneof(
          fc
            .dictionary(fc.constantFrom('name', 'plan', 'org_id', 'environment', 'bi_enabled', 'org_context'), hostileJson, { maxKeys: 4 })
            .map((b) => JSON.stringify(b)),
          hostileText,
        ),
      })
      .map(
        ({ route, method, id, token, body }): FuzzRequest => ({
          method,
          path: route.replace('ID', encode(id)),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : body,
        }),
      );

  // Hand-written routes outside OpenAPI: certificate PDFs, public verification, published keys, signed export files, OData.
  const documentRequest = () =>
    fc
      .record({
        route: fc.constantFrom(
          '/v1/certificate?id=ID',
          '/verify/ID',
          '/.well-known/jwks.json',
          '/v1/certificate',
          '/files/exports/ID',
          `/files/exports/${assetId}/ID.zip?expires=99999999999&filename=x.zip&signature=ID`,
          '/v1/odata/ID',
          '/v1/odata/Assets?$filter=ID',
          '/v1/odata/Assets?$orderby=ID&$select=ID',
          '/v1/odata/$metadata',
          '/',
          '/v1',
          '/v1/docs',
          '/v1/docs/assets/ID',
        ),
        method: fc.constantFrom('GET', 'GET', 'POST', 'DELETE'),
        id: fc.oneof(hostileText, fc.constantFrom('LCF-ABCDEFGHIJ', assetId)),
        auth: auth(),
        accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/pdf'),
        body: fc.dictionary(fc.constantFrom('calculation_id', 'id', 'x'), hostileJson, { maxKeys: 2 }).map((b) => JSON.stringify(b)),
      })
      .map(
        ({ route, method, id, auth, accept, body }): FuzzRequest => ({
          method,
          path: route.replace('ID', encode(id)),
          headers: { ...auth(), accept, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : body,
        }),
      );

  // The period inventory, contractual instruments and organisation settings: requests near valid ones (real
  // instrument ids, dates, kinds), so that each field's own rules and the instruments' overlap checks are reached,
  // with hostile values, unknown names and oversized bodies among them. A 400 must name one of the route's fields.
  /** Day `n` after 1970-01-01 as YYYY-MM-DD. */
  const dayOf = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);
  const someDate = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 9_000, max: 50_000 }).map(dayOf) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '2025-02-30',
        '2025-13-01',
        '2025-06-31',
        '0000-00-00',
        '1989-12-31',
        '2101-01-01',
        '9999-12-31',
        '2025-1-1',
        '20250101',
        '2025-01-01T00:00:00Z',
        '+002025-01-01',
        '2025-01-01\u0000',
      ),
    },
    { weight: 1, arbitrary: hostileJson },
  );
  const nearly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostileJson });
  const instrumentFields = {
    kind: nearly(fc.constantFrom('supplier_specific', 'energy_attribute_certificate', 'ppa')),
    country: nearly(fc.constantFrom('DE', 'fr', 'US-CA', 'XX', 'GB')),
    valid_from: someDate,
    valid_to: someDate,
    emission_factor_kg_per_kwh: nearly(fc.oneof(fc.double({ min: -1, max: 6, noNaN: true }), fc.constantFrom(0, 5, 5e-324))),
    coverage_share: nearly(fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), fc.constantFrom(0, 1, 5e-324))),
    label: nearly(fc.string({ maxLength: 220 })),
  };
  const planned = {
    inventory: {
      dateFrom: someDate,
      dateTo: someDate,
      method: nearly(fc.constantFrom('acquisition', 'linear', 'fifo')),
      restate: nearly(fc.constantFrom('true', 'false', '1')),
    },
    instruments: {
      kind: instrumentFields.kind,
      country: instrumentFields.country,
      limit: nearly(fc.integer({ min: -5, max: 300 })),
      offset: nearly(fc.oneof(fc.integer({ min: -5, max: 2_000 }), fc.constant(2 ** 31))),
    },
    settings: { hardware_accounting: nearly(fc.constantFrom('capital_goods', 'purchased_goods', 'opex')) },
  };
  /** Some of `fields`, perhaps with an unknown name beside them. */
  const someOf = (fields: Record<string, fc.Arbitrary<unknown>>) =>
    fc
      .tuple(fc.record(fields, { requiredKeys: [] }), fc.option(fc.tuple(unknownName, hostileJson), { freq: 5 }))
      .map(([chosen, extra]) => (extra ? { ...chosen, [extra[0]]: extra[1] } : chosen) as Record<string, unknown>);
  /** A valid period (2016 to 2030, up to ten years) or a valid instrument, the records the hostile values are mixed into. */
  const validPeriod = fc
    .tuple(fc.integer({ min: 16_801, max: 21_900 }), fc.integer({ min: 0, max: 3_652 }))
    .map(([from, length]) => ({ dateFrom: dayOf(from), dateTo: dayOf(from + length) }));
  const validInstrument = fc
    .tuple(
      fc.constantFrom('DE', 'FR', 'NL'),
      fc.integer({ min: 20_089, max: 21_915 }),
      fc.integer({ min: 0, max: 800 }),
      fc.boolean(),
      fc.constantFrom(0, 0.1, 0.25, 0.5, 1),
    )
    .map(([country, from, length, supplier, share]) => ({
      kind: supplier ? 'supplier_specific' : 'energy_attribute_certificate',
      country,
      valid_from: dayOf(from),
      valid_to: dayOf(from + length),
      ...(supplier ? { emission_factor_kg_per_kwh: share * 2 } : { coverage_share: share || 0.05 }),
    }));
  /** A valid record as it is, or with some of its fields left out or given hostile values (and perhaps an unknown name). */
  const mixed = (valid: fc.Arbitrary<Record<string, unknown>>, fields: Record<string, fc.Arbitrary<unknown>>) =>
    fc
      .tuple(valid, fc.subarray(Object.keys(fields), { maxLength: Math.min(2, Object.keys(fields).length) }), someOf(fields))
      .chain(([record, dropped, hostile]) =>
        fc.oneof(
          { weight: 1, arbitrary: fc.constant(record) },
          {
            weight: 3,
            arbitrary: fc.constant({
              ...Object.fromEntries(Object.entries(record).filter(([name]) => !dropped.includes(name))),
              ...hostile,
            }),
          },
        ),
      );
  const plannedBody = (valid: fc.Arbitrary<Record<string, unknown>>, fields: Record<string, fc.Arbitrary<unknown>>) =>
    fc.oneof(
      { weight: 8, arbitrary: mixed(valid, fields).map((b) => JSON.stringify(b)) },
      // Beyond the 256 KiB body limit: 413.
      {
        weight: 1,
        arbitrary: fc.constantFrom(JSON.stringify({ label: 'x'.repeat(300 * 1024) }), `{"label": "${'\\u0000'.repeat(50_000)}"}`),
      },
      { weight: 1, arbitrary: deepJson.map((deep) => `{"label": ${deep}}`) },
      { weight: 1, arbitrary: fc.constantFrom('null', '[]', '"text"', '{', '', '\u0000') },
    );
  const plannedRequest = () =>
    fc
      .record({
        target: fc.constantFrom(
          'GET /v1/inventory',
          'GET /v1/inventory/instruments',
          'POST /v1/inventory/instruments',
          'GET /v1/inventory/instruments/ID',
          'PATCH /v1/inventory/instruments/ID',
          'DELETE /v1/inventory/instruments/ID',
          'GET /v1/org/settings',
          'PATCH /v1/org/settings',
        ),
        inventoryQuery: mixed(validPeriod, planned.inventory),
        instrumentsQuery: someOf(planned.instruments),
        instrumentBody: plannedBody(validInstrument, instrumentFields),
        settingsBody: plannedBody(fc.constant({ hardware_accounting: 'purchased_goods' }), planned.settings),
        // A query parameter where the route reads only the body (or nothing).
        strayQuery: fc.option(fc.tuple(fc.constantFrom('label', 'kind', 'hardware_accounting', 'x'), hostileText), { freq: 4 }),
        id: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...instrumentIds) },
          { weight: 1, arbitrary: fc.constantFrom(assetId, '00000000-0000-4000-8000-000000000000', instrumentIds[0]!.toUpperCase()) },
          { weight: 2, arbitrary: hostileText },
        ),
        auth: fc.oneof(
          { weight: 6, arbitrary: fc.constant(() => ({ authorization: `Bearer ${keys.enterprise}` })) },
          { weight: 1, arbitrary: auth() },
        ),
      })
      .map(({ target, inventoryQuery, instrumentsQuery, instrumentBody, settingsBody, strayQuery, id, auth }): FuzzRequest => {
        const [method, route] = target.split(' ') as [string, string];
        const q =
          route === '/v1/inventory'
            ? Object.entries(inventoryQuery)
            : route === '/v1/inventory/instruments' && method === 'GET'
              ? Object.entries(instrumentsQuery)
              : strayQuery
                ? [strayQuery]
                : [];
        const body = route.startsWith('/v1/org') ? settingsBody : instrumentBody;
        const declared: Record<string, string[]> = {
          'GET /v1/inventory': Object.keys(planned.inventory),
          'GET /v1/inventory/instruments': Object.keys(planned.instruments),
          'POST /v1/inventory/instruments': Object.keys(instrumentFields),
          'PATCH /v1/inventory/instruments/ID': ['id', ...Object.keys(instrumentFields)],
          'GET /v1/org/settings': [],
          'PATCH /v1/org/settings': Object.keys(planned.settings),
        };
        const fields = declared[target] ?? ['id'];
        const sent = [...q.map(([name]) => name), ...(method === 'GET' ? [] : Object.keys(parsedObject(body)))];
        return {
          method,
          path: route.replace('ID', encode(id)) + query(q),
          headers: { ...auth(), 'content-type': 'application/json' },
          body: method === 'GET' || method === 'DELETE' ? undefined : body,
          fields: [...fields, ...sent],
        };
      });

  const strayRequest = () =>
    fc
      .record({
        segments: fc.array(fc.oneof(hostileText.map(encode), fc.constantFrom('%ZZ', '%', '%E0%A4', '..', '%00')), {
          minLength: 1,
          maxLength: 4,
        }),
        method: fc.constantFrom('GET', 'POST', 'PATCH', 'OPTIONS', 'HEAD', 'PUT', 'DELETE', 'PROPFIND'),
      })
      .map(({ segments, method }): FuzzRequest => ({ method, path: `/v1/${segments.join('/')}`, headers: {} }));

  // A route's path with a method it may not take (HEAD answers as GET where GET works).
  const wrongMethodRequest = () =>
    fc
      .record({
        pick: fc.integer({ min: 0, max: 10_000 }),
        method: fc.constantFrom('HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'GET', 'POST'),
        auth: auth(),
      })
      .map(({ pick, method, auth }): FuzzRequest => {
        const route = restRoutes[pick % restRoutes.length]!;
        return { method, path: route.path.replace(/\{\w+\}/g, assetId), headers: auth() };
      });

  const anyRequest = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null).chain(() => restRequest()) },
    { weight: 4, arbitrary: graphqlRequest() },
    { weight: 1, arbitrary: consoleRequest() },
    { weight: 1, arbitrary: adminRequest() },
    { weight: 1, arbitrary: documentRequest() },
    { weight: 3, arbitrary: fc.constant(null).chain(() => plannedRequest()) },
    { weight: 1, arbitrary: strayRequest() },
    { weight: 1, arbitrary: wrongMethodRequest() },
  );

  // ------------------------------------------------------------------------------------- the run

  it('answers TRACE on every route and CONNECT with a coded JSON error, never 5xx', async () => {
    const histogram = new Map<number, number>();
    const targets = [
      ...new Set(restRoutes.map((r) => r.path.replace(/\{\w+\}/g, assetId))),
      '/v1/graphql',
      '/v1/odata/Assets',
      '/healthz',
      '/nowhere',
    ];
    for (const [method, target] of [
      ...targets.map((t) => ['TRACE', t]),
      ['CONNECT', 'example.com:443'],
      ['CONNECT', server.url.slice(7)],
    ]) {
      const { status, body } = await rawRequest(server.url, method!, target!);
      histogram.set(status, (histogram.get(status) ?? 0) + 1);
      expect(status, `${method} ${target}`).toBeLessThan(500);
      const parsed = JSON.parse(body) as { code?: string; error?: { code?: string } };
      expect(parsed.code ?? parsed.error?.code, `${method} ${target}: ${body}`).toMatch(/^[A-Z_]+$/);
    }
    console.log(
      `fuzz (${TEST_DATABASE_KIND}) methods: ${targets.length} TRACE and 2 CONNECT requests; statuses ${JSON.stringify(Object.fromEntries(histogram))}`,
    );
  });

  it('never answers 5xx, always with a coded error body, within a second, while /healthz stays fast', async () => {
    const histogram = new Map<number, number>();
    const healthz: number[] = [];
    let sent = 0;
    let refusedByClient = 0;
    let closedEarly = 0;
    let polling = true;
    let inFlight = '';
    const slowPolls: string[] = [];
    const slowest: [number, string][] = [];
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await fetch(`${server.url}/healthz`);
        await res.arrayBuffer();
        healthz.push(performance.now() - started);
        if (performance.now() - started > HEALTHZ_MS / 2)
          slowPolls.push(`${Math.round(performance.now() - started)} ms during ${inFlight}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const check = async (request: FuzzRequest) => {
      const started = performance.now();
      inFlight = `${request.method} ${request.path.slice(0, 120)} ${request.body?.slice(0, 120) ?? ''}`;
      let res: Response;
      try {
        res = await fetch(`${server.url}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
        });
      } catch (error) {
        // The HTTP client itself refused to send it (an invalid header value, say): nothing reached the server.
        if (error instanceof TypeError && !/fetch failed/.test(error.message)) return void refusedByClient++;
        // An oversized request is answered (431, 413) and the connection closed while the client still writes.
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        const oversized = request.path.length > 16 * 1024 || (request.body?.length ?? 0) > 256 * 1024;
        if (oversized && (cause === 'EPIPE' || cause === 'ECONNRESET' || cause === 'UND_ERR_SOCKET')) return void closedEarly++;
        throw new Error(
          `${request.method} ${request.path.slice(0, 200)}: no answer (${(error as Error).message}: ${String((error as { cause?: unknown }).cause)})`,
        );
      }
      const text = await res.text();
      const ms = performance.now() - started;
      sent++;
      slowest.push([ms, `${res.status} ${inFlight}`]);
      slowest.sort((a, b) => b[0] - a[0]).splice(5);
      histogram.set(res.status, (histogram.get(res.status) ?? 0) + 1);
      const where = `${request.method} ${request.path.slice(0, 160)} -> ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      expect(ms, `${where} took ${Math.round(ms)} ms`).toBeLessThan(SLOWEST_MS);
      // A HEAD answer has the GET answer's headers and no body.
      if (res.status < 400 || request.method === 'HEAD') return;
      const type = res.headers.get('content-type') ?? '';
      // People's pages (the console, certificate verification) show their errors as HTML.
      if (/^\/(console|verify)/.test(request.path) && type.startsWith('text/html'))
        return void expect(text.length, where).toBeGreaterThan(0);
      expect(type, where).toMatch(/^application\/(json|graphql-response\+json)/);
      const body = JSON.parse(text) as { code?: string; error?: string | { code?: string }; errors?: { extensions?: { code?: string } }[] };
      // REST bodies (the 429 body too) name the code at the top, OData's in `error`, GraphQL's in extensions.
      const code = body.code ?? (typeof body.error === 'object' ? body.error.code : undefined) ?? body.errors?.[0]?.extensions?.code;
      expect(code, where).toBeTruthy();
      if (request.fields && res.status === 400) {
        const named = /^([^:]+):/.exec(String((body as { details?: unknown }).details))?.[1];
        expect([...request.fields, 'body', 'url'], `${where}: names none of the request's fields`).toContain(named);
      }
    };

    try {
      await fc.assert(fc.asyncProperty(anyRequest, check), {
        numRuns: 1_000_000,
        interruptAfterTimeLimit: FUZZ_MS,
        markInterruptAsFailure: false,
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
      });
    } finally {
      polling = false;
      await poller;
    }
    const sortedHealthz = [...healthz].sort((a, b) => a - b);
    const p99 = sortedHealthz[Math.floor(sortedHealthz.length * 0.99)] ?? 0;
    console.log(
      `fuzz (${TEST_DATABASE_KIND}): ${sent} requests in ${FUZZ_MS / 1000} s, ${refusedByClient} refused by the HTTP client, ${closedEarly} oversized ones cut off by the server while sending; statuses ${JSON.stringify(Object.fromEntries([...histogram].sort(([a], [b]) => a - b)))}; ` +
        `/healthz ${healthz.length} polls, p99 ${p99.toFixed(1)} ms, max ${(sortedHealthz.at(-1) ?? 0).toFixed(1)} ms`,
    );
    console.log(`slowest answers: ${slowest.map(([ms, what]) => `${Math.round(ms)} ms ${what}`).join(' | ')}`);
    if (slowPolls.length) console.log(`slow /healthz polls: ${slowPolls.join(' | ')}`);
    const pid = server.child.pid!;
    let rss = `server RSS after the fuzz run: ${serverRssMb(pid)} MB`;
    if (IDLE_MS) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      rss += `, after ${IDLE_MS / 1000} s idle: ${serverRssMb(pid)} MB`;
    }
    console.log(rss);
    expect(sent).toBeGreaterThan(200);
    expect(sortedHealthz.at(-1) ?? 0).toBeLessThan(HEALTHZ_MS);
    expect(server.output()).not.toMatch(/"level":50/);
  });
});
