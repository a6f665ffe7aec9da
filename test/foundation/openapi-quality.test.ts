import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validate, compileErrors } from '@readme/openapi-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// The OpenAPI document as client generators read it (issue 14, point 3).

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, { type?: string; enum?: string[] }>; required?: string[] } }>;
  };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
};

type Schema = {
  type?: string;
  $ref?: string;
  enum?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  required?: string[];
};

/** The component schemas `roots` refer to, directly or through other components. */
function componentsReachedFrom(roots: unknown): Set<string> {
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') visit(value);
      // Only schemas: responses also refer to components.headers.
      else if (!value.startsWith('#/components/schemas/')) continue;
      else if (!reached.has(value.split('/').pop()!)) {
        reached.add(value.split('/').pop()!);
        visit(doc.components.schemas[value.split('/').pop()!]);
      }
    }
  };
  visit(roots);
  return reached;
}

let t: TestApp;
let doc: Document;
const operations = () =>
  Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path: p, op })),
  );

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.json('/v1/openapi.json')).body;
});
afterAll(() => t.close());

describe('GET /v1/openapi.json', () => {
  it('is valid OpenAPI 3 for a maintained validator', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('names every operation, takes bodies only as requestBody, and documents its errors with the error schemas', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['footprint', 'footprintBatch', 'importAssets', 'identify', 'report', 'exportJobDownload']));
    for (const { method, path: p, op } of operations()) {
      const where = `${method} ${p}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      if (['POST', 'PUT', 'PATCH'].includes(method)) expect(op.parameters?.filter((q) => q.in === 'query') ?? [], where).toEqual([]);
      const errorSchema = (status: string) => op.responses[status]?.content?.['application/json']?.schema;
      expect(errorSchema('default'), where).toEqual({ $ref: '#/components/schemas/ApiError' });
      // The routes outside API keys (verification, JWKS, signed export links) have their own errors only.
      if (op.security?.length === 0) continue;
      expect(errorSchema('401'), where).toEqual({ $ref: '#/components/schemas/ApiError' });
      expect(errorSchema('429'), where).toEqual({ $ref: '#/components/schemas/RateLimitError' });
      if (op.requestBody) expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['400', '413']));
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(response.content?.['application/json']?.schema, `${where} ${status}`).toBeDefined();
      }
    }
    expect(doc.paths['/v1/footprint/batch']!.post!.requestBody!.content['application/json']!.schema.properties!.products).toMatchObject({
      minItems: 1,
      maxItems: 100,
    });
    expect(doc.paths['/v1/webhooks/endpoints/{id}/rotate-secret']!.post!.requestBody).toBeUndefined();
    expect(Object.keys(doc.paths['/v1/org/export/jobs/{id}']!.delete!.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '429',
      'default',
    ]);
    expect(Object.keys(doc.paths['/v1/identify']!.post!.responses)).toEqual(['200', '400', '401', '404', '413', '429', '503', 'default']);
    expect(doc.components.schemas.ApiError).toMatchObject({ required: ['error', 'code', 'details'] });
    expect(doc.components.schemas.RateLimitError).toMatchObject({ required: ['error', 'message', 'retry_after_seconds', 'code'] });
  });

  it('gives every operation a summary and a declared tag, and every response the headers it carries', () => {
    const tags = (doc as unknown as { tags: { name: string; description: string }[] }).tags;
    expect(tags.every((tag) => tag.description.length > 0)).toBe(true);
    for (const { method, path: p, op } of operations()) {
      const where = `${method} ${p}`;
      const { summary, tags: own = [] } = op as Operation & { summary?: string; tags?: string[] };
      expect(summary, where).toBeTruthy();
      expect(own.length, where).toBeGreaterThan(0);
      for (const tag of own)
        expect(
          tags.map((t) => t.name),
          where,
        ).toContain(tag);
      for (const [status, response] of Object.entries(op.responses) as [string, { headers?: Record<string, unknown> }][]) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${where} ${status}`).toContain('X-Request-Id');
        if (status === '429') expect(headers, `${where} ${status}`).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Reset']));
        if (p.startsWith('/v1/')) expect(headers, `${where} ${status}`).toContain('X-RateLimit-Remaining');
      }
    }
    const download = doc.paths['/v1/org/export/jobs/{id}/download']!.get!;
    expect(download.parameters).toContainEqual(expect.objectContaining({ name: 'Accept', in: 'header', required: true }));
    expect(download.responses['302']).toMatchObject({ headers: { Location: { required: true } } });
    expect(doc.paths['/v1/report']!.post!.responses['200']).toMatchObject({
      headers: { 'Content-Disposition': { required: true }, 'X-Report-Remaining': {} },
      content: { 'application/pdf': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/pdf' } } },
    });
    expect(doc.paths['/v1/report']!.post!.responses['503']).toBeDefined();
    expect(doc.paths['/v1/certificate']!.get!.responses['503']).toBeDefined();
  });

  it('states the bounds the code checks', () => {
    const param = (p: string, name: string) => doc.paths[p]!.get!.parameters!.find((q) => q.name === name)!.schema;
    expect(param('/v1/search', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 15, default: 15 });
    expect(param('/v1/org/export/jobs', 'offset')).toMatchObject({ minimum: 0 });
    expect(param('/v1/savings', 'remaining_years')).toMatchObject({ minimum: 0, maximum: 15 });
    expect(param('/v1/footprint', 'weight_kg')).toMatchObject({ exclusiveMinimum: 0 });
    expect(param('/v1/footprint', 'country')).toMatchObject({ maxLength: 64 });
    expect(param('/v1/refurbishment', 'grade')).toEqual({ $ref: '#/components/schemas/RefurbishmentGrade' });
    expect(doc.components.schemas.FootprintBatchItem!.properties!.ram_gb).toMatchObject({ minimum: 0 });
    expect(doc.components.schemas.FootprintResult!.properties!.calculation_id).toMatchObject({ type: ['string', 'null'] });
    expect(doc.components.schemas.FootprintResult!.properties!.calculated_at).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('requires every property of a response object: a REST body selects every field, a nullable one is null, never absent', () => {
    const reached = componentsReachedFrom(
      operations().flatMap(({ op }) => Object.entries(op.responses).filter(([status]) => Number(status) < 400)),
    );
    expect(reached.size).toBeGreaterThan(40);
    const optional = [...reached].flatMap((name) => {
      const { properties = {}, required = [] } = doc.components.schemas[name] as Schema;
      return Object.keys(properties)
        .filter((property) => !required.includes(property))
        .map((property) => `${name}.${property}`);
    });
    expect(optional).toEqual([]);
    const calculationId = doc.components.schemas.FootprintResult!.properties!.calculation_id;
    expect([doc.components.schemas.FootprintResult!.required, calculationId]).toEqual([
      expect.arrayContaining(['calculation_id']),
      expect.objectContaining({ type: ['string', 'null'] }),
    ]);
  });

  it('requires the inputs the server refuses to do without, also where GraphQL checks them per item', () => {
    expect(doc.components.schemas.AssetInput!.required).toEqual(['brand', 'serial_number', 'country']);
    expect(doc.components.schemas.FootprintBatchItem!.required).toEqual(['brand', 'country']);
  });

  it('refers to named enums everywhere, states closed lists and error codes as enums, and types every map', () => {
    const schemas = doc.components.schemas as Record<string, Schema>;
    const named = new Map(
      Object.entries(schemas)
        .filter(([, schema]) => schema.enum)
        .map(([name, schema]) => [JSON.stringify([...schema.enum!].sort()), name]),
    );
    const inline: string[] = [];
    const untyped: string[] = [];
    const visit = (node: unknown, where: string, isProperty = false): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}[${i}]`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Schema;
      const repeated = schema.enum && named.get(JSON.stringify([...schema.enum].sort()));
      if (repeated && !/^\.components\.schemas\.\w+$/.test(where)) inline.push(`${where} repeats ${repeated}`);
      const typed = ['type', '$ref', 'allOf', 'oneOf', 'anyOf', 'enum'].some((keyword) => keyword in schema);
      if (isProperty && (!typed || (schema.type === 'object' && !schema.properties && !schema.additionalProperties))) untyped.push(where);
      for (const [key, value] of Object.entries(schema)) {
        if (key === 'properties') for (const [name, property] of Object.entries(value as object)) visit(property, `${where}.${name}`, true);
        else visit(value, `${where}.${key}`);
      }
    };
    visit(doc, '');
    expect(inline).toEqual([]);
    expect(untyped).toEqual([]);
    const used = JSON.stringify({ ...doc, components: undefined }) + JSON.stringify(Object.values(schemas));
    expect(Object.keys(schemas).filter((name) => !used.includes(`"#/components/schemas/${name}"`))).toEqual([]);

    const enumOf = (property: Schema | undefined): string[] | undefined => {
      const target = property?.$ref ?? property?.items?.$ref ?? property?.allOf?.[0]?.$ref ?? property?.anyOf?.[0]?.$ref;
      return target ? schemas[target.split('/').pop()!]!.enum : property?.enum;
    };
    const property = (name: string, field: string) => schemas[name]!.properties![field] as Schema;
    expect(enumOf(property('ApiError', 'code'))).toEqual(expect.arrayContaining(['INVALID_PARAMETER', 'NOT_FOUND', 'PLAN_TOO_LOW']));
    expect(enumOf(property('RateLimitError', 'code'))).toEqual(expect.arrayContaining(['RATE_LIMITED_DAY', 'RATE_LIMITED_MINUTE']));
    expect(enumOf(property('AssetInput', 'status'))).toContain('in_use');
    expect(enumOf(property('AssetInput', 'screen_type'))).toContain('mini_led');
    expect(enumOf(property('ProductSpecs', 'storage_type'))).toContain('nvme');
    expect(enumOf(property('ExportScope', 'include'))).toContain('assets');
    expect(enumOf(property('ExportScopeInput', 'exclude'))).toContain('audit_log');
    expect(enumOf(property('ExportJob', 'error_code'))).toContain('EXPORT_STALLED');
    expect(enumOf(property('WebhookEndpoint', 'events'))).toContain('org.export.job.completed');
    expect(enumOf(property('RefurbishmentResult', 'grade'))).toEqual(['A', 'B', 'C']);
    expect(property('ExportManifest', 'record_counts')).toMatchObject({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('makes the key optional exactly on the routes that answer without one', async () => {
    const open = operations()
      .filter(({ op }) => op.security?.some((s) => Object.keys(s).length === 0))
      .map(({ op }) => op.operationId);
    expect(open.sort()).toEqual([
      'footprint',
      'footprintBatch',
      'identify',
      'referenceCategories',
      'referenceCountries',
      'refurbishment',
      'savings',
      'search',
    ]);
    // Asked without a key, with the required inputs present, every other route answers 401.
    for (const { method, path: p, op } of operations()) {
      if (open.includes(op.operationId) || op.security?.length === 0) continue;
      const { properties = {}, required = [] } = op.requestBody?.content['application/json']?.schema ?? {};
      const body = Object.fromEntries(
        required.map((name) => [name, properties[name]?.type === 'array' ? [] : (properties[name]?.enum?.[0] ?? 'x')]),
      );
      const res = await t.json(`${p.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000')}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: op.requestBody ? JSON.stringify(body) : undefined,
      });
      expect([`${method} ${p}`, res.status]).toEqual([`${method} ${p}`, 401]);
    }
  });

  it('generates a typed client (openapi-typescript) that type-checks a program calling footprint, batch and assets', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lcf-openapi-'));
    try {
      await writeFile(path.join(dir, 'api.ts'), astToString(await openapiTS(doc as never)));
      await writeFile(path.join(dir, 'sample.ts'), SAMPLE_PROGRAM);
      const program = ts.createProgram([path.join(dir, 'sample.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        lib: ['lib.es2022.d.ts'],
        types: [],
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A client's code against the generated types; each @ts-expect-error must meet an error, or tsc reports the directive unused. */
const SAMPLE_PROGRAM = `
import type { components, paths } from './api.ts';

type FootprintQuery = NonNullable<paths['/v1/footprint']['get']['parameters']['query']>;
type Footprint = paths['/v1/footprint']['get']['responses'][200]['content']['application/json'];
type BatchBody = paths['/v1/footprint/batch']['post']['requestBody']['content']['application/json'];
type Batch = paths['/v1/footprint/batch']['post']['responses'][200]['content']['application/json'];
type AssetsBody = paths['/v1/assets']['post']['requestBody']['content']['application/json'];
type Imported = paths['/v1/assets']['post']['responses'][200]['content']['application/json'];
type Refused = paths['/v1/assets']['post']['responses'][403]['content']['application/json'];
type RateLimited = paths['/v1/footprint/batch']['post']['responses'][429]['content']['application/json'];

declare function call<T>(method: string, path: string, input: object): Promise<T>;

export async function sample(): Promise<string[]> {
  const query: FootprintQuery = { brand: 'Dell', model: 'Latitude 5440', country: 'DE', ram_gb: 16, storage_type: 'ssd' };
  const footprint = await call<Footprint>('GET', '/footprint', query);
  const total: number = footprint.total_kg_co2e;
  const calculatedAt: string = footprint.calculated_at;
  // Always sent, null for anonymous callers: not optional.
  const calculationId: string | null = footprint.calculation_id;

  const products: BatchBody = { products: [{ brand: 'Dell', model: 'X', country: 'DE', ram_gb: 8 }] };
  const batch = await call<Batch>('POST', '/footprint/batch', products);
  const itemErrors = batch.results.flatMap((r) => ('error' in r ? [r.index + ': ' + r.error] : [r.product.name]));

  const assets: AssetsBody = { assets: [{ brand: 'Dell', model: 'X', serial_number: 'S1', country: 'DE' }] };
  const imported = await call<Imported>('POST', '/assets', assets);
  const refused: Refused = { error: 'Forbidden', code: 'NO_ORGANIZATION_CONTEXT', details: '' };
  const limited: RateLimited = { error: 'Rate limit exceeded', code: 'RATE_LIMITED_MINUTE', message: '', retry_after_seconds: 3 };

  // @ts-expect-error brand is required
  const noBrand: FootprintQuery = { model: 'X', country: 'DE' };
  // @ts-expect-error an imported asset needs its serial number
  const noSerial: AssetsBody = { assets: [{ brand: 'Dell', model: 'X', country: 'DE' }] };
  // @ts-expect-error code is one of the documented codes
  const unknownCode: Refused = { error: 'Forbidden', code: 'NO_SUCH_CODE', details: '' };
  const refurbished: components['schemas']['RefurbishmentResult']['grade'] = 'A';
  // @ts-expect-error ram_gb is a number
  const badItem: BatchBody = { products: [{ brand: 'Dell', model: 'X', country: 'DE', ram_gb: 'lots' }] };
  // @ts-expect-error storage_type is one of the enum values
  const badEnum: FootprintQuery = { brand: 'Dell', model: 'X', country: 'DE', storage_type: 'flash' };
  // @ts-expect-error the batch is a body, never query parameters
  const asQuery: paths['/v1/footprint/batch']['post']['parameters']['query'] = { products: [] };

  return [String(total), calculatedAt, String(calculationId), ...itemErrors, String(imported.created), refused.code, String(limited.retry_after_seconds),
    String(noBrand), String(noSerial), String(unknownCode), refurbished, String(badItem), String(badEnum), String(asQuery), String({} as components['schemas']['ApiError'])];
}
`;
