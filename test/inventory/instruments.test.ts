import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';

// Contractual instruments for market-based Scope 2 (docs/inventory-market-based.md) over REST and GraphQL.
let t: TestApp;
let orgA: { id: string };
let keyA: string;
let keyB: string;
let testKeyA: string;
let demoKey: string;

const prisma = () => t.app.services.db.prisma;
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const BASE = '/v1/inventory/instruments';
const create = (key: string, body: Record<string, unknown>) =>
  t.json(BASE, { method: 'POST', headers: auth(key), body: JSON.stringify(body) });
const patch = (key: string, id: string, body: Record<string, unknown>) =>
  t.json(`${BASE}/${id}`, { method: 'PATCH', headers: auth(key), body: JSON.stringify(body) });
const get = (key: string, id: string) => t.json(`${BASE}/${id}`, { headers: auth(key) });
const remove = (key: string, id: string) => t.json(`${BASE}/${id}`, { method: 'DELETE', headers: auth(key) });
const list = (key: string, query = '') => t.json(`${BASE}${query}`, { headers: auth(key) });
const patchSettings = (key: string, body: Record<string, unknown>) =>
  t.json('/v1/org/settings', { method: 'PATCH', headers: auth(key), body: JSON.stringify(body) });
/** A new organisation and a live key of it. */
const orgWithKey = async (plan: string, name: string) => {
  const org = await t.createOrg(plan, name);
  return { org, key: (await t.createKey(org.id)).key };
};

const FIELDS = [
  'id',
  'kind',
  'country',
  'valid_from',
  'valid_to',
  'emission_factor_kg_per_kwh',
  'coverage_share',
  'label',
  'created_at',
  'updated_at',
];
const supplier = (country: string, from: string, to: string, factor = 0.2) => ({
  kind: 'supplier_specific',
  country,
  valid_from: from,
  valid_to: to,
  emission_factor_kg_per_kwh: factor,
});
const certificate = (country: string, from: string, to: string, share: number) => ({
  kind: 'energy_attribute_certificate',
  country,
  valid_from: from,
  valid_to: to,
  coverage_share: share,
});

beforeAll(async () => {
  t = await createTestApp();
  orgA = await t.createOrg('free', 'Instrument Org A');
  keyA = (await t.createKey(orgA.id)).key;
  testKeyA = (await t.createKey(orgA.id, { environment: 'test' })).key;
  demoKey = (await t.createKey(orgA.id, { environment: 'test', org_context: false })).key;
  keyB = (await t.createKey((await t.createOrg('pro', 'Instrument Org B')).id)).key;
}, 60_000);
afterAll(() => t.close());

describe(`contractual instruments on ${TEST_DATABASE_KIND}`, () => {
  it('creates, gets, lists, changes and deletes an instrument with exact fields and status codes, each write audit-logged', async () => {
    const created = await create(keyA, { ...supplier('de', '2025-01-01', '2025-12-31', 0.312), label: '  Stadtwerke tariff 2025 ' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(FIELDS);
    expect(created.body).toMatchObject({
      kind: 'supplier_specific',
      country: 'DE',
      valid_from: '2025-01-01',
      valid_to: '2025-12-31',
      emission_factor_kg_per_kwh: 0.312,
      coverage_share: null,
      label: 'Stadtwerke tariff 2025',
    });
    const id = created.body.id as string;
    expect(await prisma().contractualInstrument.findUniqueOrThrow({ where: { id } })).toMatchObject({ org_id: orgA.id, country: 'DE' });

    const got = await get(keyA, id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const listed = await list(keyA);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ total: 1, limit: 50, offset: 0, instruments: [created.body] });

    const changed = await patch(keyA, id, { valid_to: '2025-06-30', emission_factor_kg_per_kwh: 0.25, label: '' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      ...created.body,
      valid_to: '2025-06-30',
      emission_factor_kg_per_kwh: 0.25,
      label: null,
      updated_at: expect.any(String),
    });

    // An empty change answers the instrument as it is and logs nothing.
    expect(await patch(keyA, id, {})).toMatchObject({ status: 200, body: changed.body });

    const deleted = await remove(keyA, id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, valid_to: '2025-06-30' });
    expect((await get(keyA, id)).status).toBe(404);
    expect((await remove(keyA, id)).status).toBe(404);

    const audit = await prisma().auditLog.findMany({ where: { subject_id: id }, orderBy: { created_at: 'asc' } });
    expect(audit.map((a) => [a.event, a.org_id, a.subject_type])).toEqual([
      ['contractual_instrument.created', orgA.id, 'contractual_instrument'],
      ['contractual_instrument.updated', orgA.id, 'contractual_instrument'],
      ['contractual_instrument.deleted', orgA.id, 'contractual_instrument'],
    ]);
    expect(audit[0]!.data).toEqual({
      kind: 'supplier_specific',
      country: 'DE',
      valid_from: '2025-01-01',
      valid_to: '2025-12-31',
      emission_factor_kg_per_kwh: 0.312,
      coverage_share: null,
      label: 'Stadtwerke tariff 2025',
    });
    expect(audit[1]!.data).toEqual({ changed: { valid_to: '2025-06-30', emission_factor_kg_per_kwh: 0.25, label: null } });
    expect(audit[2]!.data).toMatchObject({ valid_to: '2025-06-30', emission_factor_kg_per_kwh: 0.25 });
  });

  it('refuses bad input with 400 naming each field, before anything is written', async () => {
    const before = await prisma().contractualInstrument.count();
    const cases: [Record<string, unknown>, number, string][] = [
      // kind-specific fields
      [
        { kind: 'supplier_specific', country: 'DE', valid_from: '2025-01-01', valid_to: '2025-12-31' },
        400,
        'emission_factor_kg_per_kwh: is required for a supplier_specific instrument (kg CO2e per kWh)',
      ],
      [
        { ...supplier('DE', '2025-01-01', '2025-12-31'), coverage_share: 0.5 },
        400,
        'coverage_share: is for energy_attribute_certificate instruments only; leave it out for supplier_specific',
      ],
      [
        { kind: 'energy_attribute_certificate', country: 'FR', valid_from: '2025-01-01', valid_to: '2025-12-31' },
        400,
        'coverage_share: is required for an energy_attribute_certificate instrument (the share of the consumption covered)',
      ],
      [
        { ...certificate('FR', '2025-01-01', '2025-12-31', 0.5), emission_factor_kg_per_kwh: 0 },
        400,
        'emission_factor_kg_per_kwh: is for supplier_specific instruments only; certificates count at zero emissions for the share they cover',
      ],
      // bounds
      [supplier('DE', '2025-01-01', '2025-12-31', 5.01), 400, 'emission_factor_kg_per_kwh: must be from 0 to 5 kg CO2e per kWh, got 5.01'],
      [supplier('DE', '2025-01-01', '2025-12-31', -0.1), 400, 'emission_factor_kg_per_kwh: must be from 0 to 5 kg CO2e per kWh, got -0.1'],
      [
        certificate('FR', '2025-01-01', '2025-12-31', 0),
        400,
        'coverage_share: must be more than 0 and at most 1 (a share of the consumption), got 0',
      ],
      [
        certificate('FR', '2025-01-01', '2025-12-31', 1.5),
        400,
        'coverage_share: must be more than 0 and at most 1 (a share of the consumption), got 1.5',
      ],
      // dates and span
      [supplier('DE', '2025-07-01', '2025-06-30'), 400, 'valid_to: must be on or after valid_from (2025-07-01), got 2025-06-30'],
      [
        supplier('DE', '2020-01-01', '2030-01-01'),
        400,
        'valid_to: an instrument covers at most 3653 days (ten years), got 3654; record a longer agreement year by year',
      ],
      [supplier('DE', '1999-12-31', '2000-01-31'), 400, 'valid_from: must be from 2000-01-01 to 2100-12-31, got 1999-12-31'],
      [supplier('DE', '2025-02-30', '2025-03-31'), 400, 'valid_from: Date is not a valid date: 2025-02-30'],
      // country, label, types, unknown fields
      [supplier('DX', '2025-01-01', '2025-12-31'), 400, "country: unknown region code 'DX'; closest valid codes:"],
      [{ ...supplier('DE', '2025-01-01', '2025-12-31'), label: 'x'.repeat(201) }, 400, 'label: must be at most 200 characters, got 201'],
      [
        { ...supplier('DE', '2025-01-01', '2025-12-31'), emission_factor_kg_per_kwh: '0.2' },
        400,
        "emission_factor_kg_per_kwh: must be a number, got '0.2'",
      ],
      [
        { ...supplier('DE', '2025-01-01', '2025-12-31'), kind: 'ppa' },
        400,
        "kind: must be one of energy_attribute_certificate, supplier_specific, got 'ppa'",
      ],
      [{ ...supplier('DE', '2025-01-01', '2025-12-31'), share: 1 }, 400, 'share: unknown parameter'],
    ];
    for (const [body, status, details] of cases) {
      const res = await create(keyA, body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(status);
      expect(res.body.details, JSON.stringify(body).slice(0, 120)).toContain(details);
      expect(res.body.code).toBe(details.includes('unknown parameter') ? 'UNKNOWN_PARAMETER' : 'INVALID_PARAMETER');
    }
    // Several problems of one instrument: one 400 naming each.
    const both = await create(keyA, {
      kind: 'energy_attribute_certificate',
      country: 'FR',
      valid_from: '2025-07-01',
      valid_to: '2025-06-30',
      emission_factor_kg_per_kwh: 0.1,
    });
    expect(both.body.details).toBe(
      'valid_to: must be on or after valid_from (2025-07-01), got 2025-06-30; coverage_share: is required for an energy_attribute_certificate instrument (the share of the consumption covered); ' +
        'emission_factor_kg_per_kwh: is for supplier_specific instruments only; certificates count at zero emissions for the share they cover',
    );
    // A patch may not give a field of the other kind, nor change the kind.
    const instrument = (await create(keyA, supplier('NL', '2025-01-01', '2025-12-31'))).body;
    const wrongKind = await patch(keyA, instrument.id, { coverage_share: 0.5 });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.details).toBe(
      'coverage_share: is for energy_attribute_certificate instruments only; leave it out for supplier_specific',
    );
    expect((await patch(keyA, instrument.id, { kind: 'energy_attribute_certificate' })).body).toMatchObject({ code: 'UNKNOWN_PARAMETER' });
    expect((await get(keyA, 'not-a-uuid')).body).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: "id: must be a UUID, got 'not-a-uuid'",
    });
    expect((await list(keyA, '?limit=201')).body.details).toBe('limit: must be an integer from 1 to 200, got 201');
    expect((await list(keyA, '?page=2')).body.code).toBe('UNKNOWN_PARAMETER');
    expect(await prisma().contractualInstrument.count()).toBe(before + 1);
    await remove(keyA, instrument.id);
  });

  it('one supplier-specific factor per country and day; certificates of a country cover at most 100 % of any day (409 naming the overlap)', async () => {
    const { key } = await orgWithKey('pro', 'Overlap Org');
    const first = (await create(key, supplier('FR', '2025-01-01', '2025-06-30'))).body;
    const clash = await create(key, supplier('FR', '2025-06-30', '2025-12-31'));
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({
      error: 'Overlapping contractual instruments',
      code: 'CONTRACTUAL_INSTRUMENT_OVERLAP',
      details: `valid_from: a supplier-specific factor for FR already applies from 2025-01-01 to 2025-06-30 (instrument ${first.id}); one supplier-specific factor per country and day`,
    });
    // The next day, another country, or a certificate on the same days: no overlap.
    expect((await create(key, supplier('FR', '2025-07-01', '2025-12-31'))).status).toBe(201);
    expect((await create(key, supplier('BE', '2025-01-01', '2025-12-31'))).status).toBe(201);

    const half = (await create(key, certificate('FR', '2025-01-01', '2025-12-31', 0.5))).body;
    const quarter = (await create(key, certificate('FR', '2025-07-01', '2025-09-30', 0.25))).body;
    // 0.5 + 0.25 + 0.25 = 100 % in September: allowed; one more share is not, on the day named.
    const third = (await create(key, certificate('FR', '2025-09-01', '2025-10-31', 0.25))).body;
    expect(third.coverage_share).toBe(0.25);
    const page = await list(key, '?country=fr&kind=energy_attribute_certificate&limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 1, instruments: [{ id: quarter.id }, { id: third.id }] });
    const over = await create(key, certificate('FR', '2025-09-10', '2025-09-20', 0.01));
    expect(over.status).toBe(409);
    const ids = [half.id, quarter.id, third.id].sort().join(', ');
    expect(
      over.body.details.replace(/instruments (.*?);/, (_m: string, list: string) => `instruments ${list.split(', ').sort().join(', ')};`),
    ).toBe(
      `coverage_share: certificates for FR would cover 101 % of the consumption on 2025-09-10: 100 % is already covered by instruments ${ids}; ` +
        'certificates of one country may cover at most 100 % of any day',
    );
    // Outside the crowded months there is room up to 100 %.
    expect((await create(key, certificate('FR', '2025-11-01', '2025-12-31', 0.3))).status).toBe(201);
    expect((await create(key, certificate('FR', '2025-11-01', '2025-12-31', 0.2))).status).toBe(201);
    expect((await create(key, certificate('FR', '2025-11-01', '2025-12-31', 0.1))).status).toBe(409);
    // Shares whose floating-point sum is 1.0000000000000002 make 100 %.
    for (const share of [0.1, 0.2, 0.7]) expect((await create(key, certificate('AT', '2025-01-01', '2025-12-31', share))).status).toBe(201);
    // A change is checked against the others, not against itself.
    expect((await patch(key, half.id, { coverage_share: 0.55 })).status).toBe(409);
    expect((await patch(key, half.id, { coverage_share: 0.4, label: 'GO 2025' })).status).toBe(200);
    expect((await patch(key, first.id, { valid_to: '2025-07-01' })).status).toBe(409);
  });

  it('holds the overlap rule under concurrent requests: of 8 certificates of 20 % each on the same days, 5 are recorded', async () => {
    const { org, key } = await orgWithKey('pro', 'Race Org');
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(key, certificate('IT', '2025-01-01', '2025-12-31', 0.2))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    const stored = await prisma().contractualInstrument.findMany({ where: { org_id: org.id } });
    expect(stored.reduce((sum, s) => sum + s.coverage_share!, 0)).toBeCloseTo(1, 9);
  });

  it('an Idempotency-Key makes a retried creation record one instrument and answer it again', async () => {
    const { org, key } = await orgWithKey('pro', 'Retry Org');
    const send = () =>
      t.json(BASE, {
        method: 'POST',
        headers: { ...auth(key), 'idempotency-key': 'instrument-2025-de' },
        body: JSON.stringify(supplier('DE', '2025-01-01', '2025-12-31', 0.3)),
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await prisma().contractualInstrument.count({ where: { org_id: org.id } })).toBe(1);
  });

  it('refuses the 1001st instrument of an organisation with 409 CONTRACTUAL_INSTRUMENT_LIMIT', async () => {
    const { org, key } = await orgWithKey('pro', 'Limit Org');
    await prisma().contractualInstrument.createMany({
      data: Array.from({ length: 1_000 }, () => ({
        org_id: org.id,
        kind: 'energy_attribute_certificate' as const,
        country: 'PL',
        valid_from: new Date('2025-01-01'),
        valid_to: new Date('2025-12-31'),
        coverage_share: 0.0005,
      })),
    });
    const refused = await create(key, certificate('CZ', '2025-01-01', '2025-12-31', 0.5));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: 'Too many contractual instruments',
      code: 'CONTRACTUAL_INSTRUMENT_LIMIT',
      details: 'An organisation has at most 1000 contractual instruments; delete one first',
    });
    expect((await list(key, '?limit=1&offset=999')).body).toMatchObject({ total: 1_000, instruments: [{ country: 'PL' }] });
  });

  it("answers another organisation's instrument exactly like a missing one", async () => {
    const mine = (await create(keyA, supplier('ES', '2025-01-01', '2025-12-31'))).body;
    const missing = randomUUID();
    for (const [foreign, unknown] of [
      [await get(keyB, mine.id), await get(keyB, missing)],
      [await patch(keyB, mine.id, { label: 'x' }), await patch(keyB, missing, { label: 'x' })],
      [await remove(keyB, mine.id), await remove(keyB, missing)],
    ]) {
      expect(foreign!.status).toBe(404);
      expect(foreign!.body).toEqual({ ...unknown!.body, details: unknown!.body.details.replace(missing, mine.id) });
      expect(foreign!.body.details).toBe(`id: no contractual instrument ${mine.id} in this organisation`);
    }
    expect((await list(keyB)).body.instruments).toEqual([]);
    // Org B's certificates do not count against org A's coverage.
    expect((await create(keyB, certificate('ES', '2025-01-01', '2025-12-31', 1))).status).toBe(201);
    expect((await create(keyA, certificate('ES', '2025-01-01', '2025-12-31', 1))).status).toBe(201);
    expect(await get(keyA, mine.id)).toMatchObject({ status: 200, body: { label: null } });
  });

  it("svc_test_ keys write their organisation's sandbox, never the organisation; the demo sandbox refuses writes", async () => {
    const sandboxed = await create(testKeyA, certificate('PT', '2025-01-01', '2025-12-31', 0.4));
    expect(sandboxed.status).toBe(201);
    expect(await prisma().contractualInstrument.findUniqueOrThrow({ where: { id: sandboxed.body.id } })).toMatchObject({
      org_id: sandboxOrgId(orgA.id),
    });
    expect((await get(keyA, sandboxed.body.id)).status).toBe(404);
    expect((await list(keyA, '?country=PT')).body.total).toBe(0);
    expect((await list(testKeyA, '?country=pt')).body.total).toBe(1);
    expect(await prisma().auditLog.findFirstOrThrow({ where: { subject_id: sandboxed.body.id } })).toMatchObject({
      org_id: sandboxOrgId(orgA.id),
    });
    const demo = await create(demoKey, certificate('PT', '2025-01-01', '2025-12-31', 0.4));
    expect(demo.status).toBe(403);
    expect(demo.body.code).toBe('SANDBOX_READ_ONLY');
    expect((await list(demoKey)).status).toBe(200);
  });

  it('works over GraphQL for plans with ad-hoc queries', async () => {
    const { key } = await orgWithKey('business', 'GraphQL Instrument Org');
    const created = await t.graphql(
      `mutation { createContractualInstrument(kind: energy_attribute_certificate, country: "SE", valid_from: "2026-01-01", valid_to: "2026-12-31", coverage_share: 0.8, label: "GO") {
        id kind country valid_from valid_to emission_factor_kg_per_kwh coverage_share label } }`,
      {},
      key,
    );
    expect(created.body.errors).toBeUndefined();
    const instrument = created.body.data.createContractualInstrument;
    expect(instrument).toMatchObject({
      kind: 'energy_attribute_certificate',
      country: 'SE',
      valid_from: '2026-01-01',
      coverage_share: 0.8,
    });
    const read = await t.graphql(
      'query ($id: ID!) { contractualInstrument(id: $id) { id label } contractualInstruments(kind: energy_attribute_certificate) { total instruments { id } } }',
      { id: instrument.id },
      key,
    );
    expect(read.body.data).toEqual({
      contractualInstrument: { id: instrument.id, label: 'GO' },
      contractualInstruments: { total: 1, instruments: [{ id: instrument.id }] },
    });
    const other = await t.graphql('query ($id: ID!) { contractualInstrument(id: $id) { id } }', { id: instrument.id }, keyB);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('OPERATION_NOT_APPROVED');
    const over = await t.graphql(
      'mutation ($id: ID!) { updateContractualInstrument(id: $id, coverage_share: 0.9) { id } deleteContractualInstrument(id: $id) { id } }',
      { id: instrument.id },
      key,
    );
    expect(over.body.data?.updateContractualInstrument).toEqual({ id: instrument.id });
    expect(over.body.data?.deleteContractualInstrument).toEqual({ id: instrument.id });
  });
});

describe(`organisation settings on ${TEST_DATABASE_KIND}`, () => {
  it('reads and sets hardware_accounting (REST and GraphQL), audit-logged when it changes', async () => {
    const { org, key } = await orgWithKey('business', 'Settings Org');
    const read = await t.json('/v1/org/settings', { headers: auth(key) });
    expect(read.status).toBe(200);
    expect(Object.keys(read.body)).toEqual(['hardware_accounting', 'updated_at']);
    expect(read.body.hardware_accounting).toBe('capital_goods');

    const set = await patchSettings(key, { hardware_accounting: 'purchased_goods' });
    expect(set.status).toBe(200);
    expect(set.body.hardware_accounting).toBe('purchased_goods');
    // The same value again changes nothing and logs nothing.
    await patchSettings(key, { hardware_accounting: 'purchased_goods' });
    const audit = await prisma().auditLog.findMany({ where: { org_id: org.id, event: 'organization.settings.updated' } });
    expect(audit.map((a) => a.data)).toEqual([{ hardware_accounting: { from: 'capital_goods', to: 'purchased_goods' } }]);

    const graphql = await t.graphql('{ organization { hardware_accounting } }', {}, key);
    expect(graphql.body.data).toEqual({ organization: { hardware_accounting: 'purchased_goods' } });
    const back = await t.graphql(
      'mutation { updateOrganizationSettings(hardware_accounting: capital_goods) { hardware_accounting } }',
      {},
      key,
    );
    expect(back.body.data).toEqual({ updateOrganizationSettings: { hardware_accounting: 'capital_goods' } });

    const bad = await patchSettings(key, { hardware_accounting: 'opex' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toBe("hardware_accounting: must be one of capital_goods, purchased_goods, got 'opex'");
    expect((await patchSettings(key, { accounting: 'x' })).body.code).toBe('UNKNOWN_PARAMETER');
    // Another organisation is untouched; the demo sandbox cannot change settings.
    expect((await prisma().organization.findUniqueOrThrow({ where: { id: orgA.id } })).hardware_accounting).toBe('capital_goods');
    const demo = await patchSettings(demoKey, { hardware_accounting: 'purchased_goods' });
    expect(demo.body.code).toBe('SANDBOX_READ_ONLY');
  });
});
