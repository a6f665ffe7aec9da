import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import { bearer, issue, revoke } from '../certificates/support.ts';
import { SBTI_AUDIT_EVENTS, SBTI_RULES } from '../../src/sbti/targets.ts';
import { sandboxOrgId } from '../../src/sandbox/sandbox.ts';
import { device } from '../support/inventory-fixtures.ts';

/** The sets behind the inventory: MonthlyEmissions (kept by the database on every asset write), Certificates and SbtiTargets (GraphQL management, progress). */
let t: TestApp;
const keys: Record<string, string> = {};
const orgs: Record<string, string> = {};
const prisma = () => t.app.services.db.prisma;

const odata = (set: string, query = '', key = keys.enterprise!) =>
  t.json(`/v1/odata/${set}${query ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
const importAssets = async (assets: object[], key = keys.enterprise!) => {
  const res = await t.json('/v1/assets', { method: 'POST', headers: bearer(key), body: JSON.stringify({ assets }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.failed, JSON.stringify(res.body.errors)).toBe(0);
  return res.body;
};

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The rollup computed from scratch: every asset with a calculation, in its purchase month (else the month it was recorded). */
async function expectedRollup(orgId: string) {
  const assets = await prisma().asset.findMany({
    where: { org_id: orgId, active_calculation_id: { not: null } },
    include: { active_calculation: true },
  });
  const groups = new Map<
    string,
    {
      month: string;
      category: string;
      country: string;
      production_kg: number;
      transport_kg: number;
      use_phase_kg: number;
      end_of_life_kg: number;
      total_kg_co2e: number;
      asset_count: number;
    }
  >();
  for (const a of assets) {
    const c = a.active_calculation!;
    const month = `${(a.purchase_date ?? a.created_at).toISOString().slice(0, 7)}-01`;
    const key = `${month}|${a.category}|${a.country}`;
    const g = groups.get(key) ?? {
      month,
      category: a.category,
      country: a.country,
      production_kg: 0,
      transport_kg: 0,
      use_phase_kg: 0,
      end_of_life_kg: 0,
      total_kg_co2e: 0,
      asset_count: 0,
    };
    g.production_kg += round6(c.production_kg);
    g.transport_kg += round6(c.transport_kg);
    g.use_phase_kg += round6(c.use_phase_kg);
    g.end_of_life_kg += round6(c.end_of_life_kg);
    g.total_kg_co2e += round6(c.total_kg_co2e);
    g.asset_count++;
    groups.set(key, g);
  }
  return [...groups.values()]
    .map((g) => ({
      ...g,
      production_kg: round6(g.production_kg),
      transport_kg: round6(g.transport_kg),
      use_phase_kg: round6(g.use_phase_kg),
      end_of_life_kg: round6(g.end_of_life_kg),
      total_kg_co2e: round6(g.total_kg_co2e),
    }))
    .sort((a, b) => `${a.month}|${a.category}|${a.country}`.localeCompare(`${b.month}|${b.category}|${b.country}`));
}

async function rollupRows(key = keys.enterprise!) {
  const res = await odata(
    'MonthlyEmissions',
    '$orderby=month,category,country&$select=month,category,country,production_kg,transport_kg,use_phase_kg,end_of_life_kg,total_kg_co2e,asset_count',
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

beforeAll(async () => {
  t = await createTestApp();
  for (const plan of ['enterprise', 'business', 'pro']) {
    orgs[plan] = (await t.createOrg(plan, `${plan} inventory`)).id;
    keys[plan] = (await t.createKey(orgs[plan]!, { bi_enabled: true })).key;
  }
  keys.enterpriseTest = (await t.createKey(orgs.enterprise!, { bi_enabled: true, environment: 'test' })).key;
}, 120_000);
afterAll(() => t?.close());

describe(`MonthlyEmissions on ${TEST_DATABASE_KIND}`, () => {
  it('is the rollup of the inventory by month, category and country right after an import, kept current on every change', async () => {
    expect((await rollupRows()).body.value).toEqual([]);
    await importAssets([
      device('R-1'),
      device('R-2', { purchase_date: '2024-03-31' }),
      device('R-3', { country: 'FR' }),
      device('R-4', { brand: 'HP', model: 'Z2 Tower', category: 'desktop', purchase_date: '2023-11-02' }),
      device('R-5', { purchase_date: undefined }),
      device('R-6', { brand: 'Samsung', model: 'Odyssey', category: 'monitor', country: 'US-CA', purchase_date: '2024-03-01' }),
    ]);
    const first = await rollupRows();
    const expected = await expectedRollup(orgs.enterprise!);
    expect(first.body.value).toEqual(expected);
    expect(first.body.value.find((r: any) => r.month === '2024-03-01' && r.category === 'laptop' && r.country === 'DE').asset_count).toBe(
      2,
    );
    // The undated asset counts in the month it was recorded.
    expect(first.body.value.some((r: any) => r.month === `${new Date().toISOString().slice(0, 7)}-01`)).toBe(true);
    const total = await prisma().asset.aggregate({ where: { org_id: orgs.enterprise! }, _sum: { total_kg_co2e: true } });
    expect(first.body.value.reduce((s: number, r: any) => s + r.total_kg_co2e, 0)).toBeCloseTo(total._sum.total_kg_co2e!, 4);
    const freshness = await prisma().monthlyEmission.aggregate({ where: { org_id: orgs.enterprise! }, _max: { updated_at: true } });
    expect(first.headers.get('x-service-data-freshness')).toBe(freshness._max.updated_at!.toISOString());

    // A re-import moves an asset to another month and country; a new model is a new calculation.
    await importAssets([device('R-1', { purchase_date: '2022-01-20', country: 'NL' }), device('R-3', { model: 'Latitude 7440' })]);
    expect((await rollupRows()).body.value).toEqual(await expectedRollup(orgs.enterprise!));
    // Status changes do not touch the figures.
    const before = await prisma().monthlyEmission.findMany({ where: { org_id: orgs.enterprise! }, orderBy: { id: 'asc' } });
    await prisma().asset.updateMany({ where: { org_id: orgs.enterprise!, serial_number: 'R-2' }, data: { status: 'recycled' } });
    expect(await prisma().monthlyEmission.findMany({ where: { org_id: orgs.enterprise! }, orderBy: { id: 'asc' } })).toEqual(before);
    // Deleting assets empties their groups exactly (decimal sums), and empty groups disappear.
    await prisma().asset.deleteMany({ where: { org_id: orgs.enterprise!, serial_number: { in: ['R-4', 'R-6'] } } });
    const after = (await rollupRows()).body.value;
    expect(after).toEqual(await expectedRollup(orgs.enterprise!));
    expect(after.some((r: any) => r.category === 'desktop' || r.category === 'monitor')).toBe(false);
    // A test key's sandbox (filled with demo assets on first use) has its own rollup.
    const sandbox = (await rollupRows(keys.enterpriseTest)).body.value;
    expect(sandbox.length).toBeGreaterThan(0);
    expect(sandbox).toEqual(await expectedRollup(sandboxOrgId(orgs.enterprise!)));
  });

  it('filters and pages on decimal figures', async () => {
    const all = (await rollupRows()).body.value as { total_kg_co2e: number }[];
    const threshold = [...all].sort((a, b) => a.total_kg_co2e - b.total_kg_co2e)[1]!.total_kg_co2e;
    const heavy = await odata('MonthlyEmissions', `$filter=total_kg_co2e gt ${threshold}&$count=true`);
    expect(heavy.body['@odata.count']).toBe(all.filter((r) => r.total_kg_co2e > threshold).length);
    const exact = await odata('MonthlyEmissions', `$filter=total_kg_co2e eq ${threshold}`);
    expect(exact.body.value.map((r: any) => r.total_kg_co2e)).toEqual([threshold]);
    const seen: number[] = [];
    let link: string | undefined = '/v1/odata/MonthlyEmissions?$orderby=total_kg_co2e%20desc';
    while (link) {
      const res: { body: any } = await t.json(link.replace('http://localhost', ''), {
        headers: { authorization: `Bearer ${keys.enterprise}`, prefer: 'odata.maxpagesize=1' },
      });
      seen.push(...res.body.value.map((r: any) => r.total_kg_co2e));
      link = res.body['@odata.nextLink'];
    }
    expect(seen).toEqual(all.map((r) => r.total_kg_co2e).sort((a, b) => b - a));
  });
});

describe(`Certificates on ${TEST_DATABASE_KIND}`, () => {
  it('lists the certificates with the figures of the certified calculation, filterable and sortable on them', async () => {
    const assets = await prisma().asset.findMany({
      where: { org_id: orgs.enterprise! },
      include: { active_calculation: true },
      orderBy: { serial_number: 'asc' },
    });
    const issued = [];
    for (const a of assets.slice(0, 3)) {
      const res = await issue(t, keys.enterprise!, a.active_calculation_id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      issued.push({ id: res.body.id, asset: a });
    }
    await revoke(t, keys.enterprise!, issued[2]!.id);
    const res = await odata('Certificates', '$orderby=total_kg_co2e desc&$count=true');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body['@odata.count']).toBe(3);
    const byId = new Map<string, any>(res.body.value.map((c: any) => [c.certificate_id, c]));
    for (const { id, asset } of issued) {
      const c = asset.active_calculation!;
      expect(byId.get(id)).toMatchObject({
        calculation_id: c.id,
        asset_id: asset.id,
        country: c.country,
        category: c.category,
        total_kg_co2e: c.total_kg_co2e,
        production_kg: c.production_kg,
        transport_kg: c.transport_kg,
        use_phase_kg: c.use_phase_kg,
        end_of_life_kg: c.end_of_life_kg,
      });
      // ADPe and PE per phase and whole-life: those of the certified calculation as the API answered it (issue 42).
      const impacts = (c.result as any).impacts;
      const phases = { production: 'production', transport: 'transport', use_phase: 'use', end_of_life: 'end_of_life' };
      for (const [criterion, unit] of [
        ['adpe', 'kg_sb_eq'],
        ['pe', 'mj'],
      ] as const) {
        expect(byId.get(id)[`${criterion}_${unit}`]).toBe(impacts[criterion].total);
        for (const [column, phase] of Object.entries(phases))
          expect(byId.get(id)[`${criterion}_${column}_${unit}`]).toBe(impacts[criterion].phases[phase]);
      }
    }
    const totals = res.body.value.map((c: any) => c.total_kg_co2e);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    // Paging continues after a value on the related row (the certified calculation).
    const paged: string[] = [];
    let link: string | undefined = '/v1/odata/Certificates?$orderby=total_kg_co2e%20desc&$select=certificate_id';
    while (link) {
      const page: { body: any } = await t.json(link.replace('http://localhost', ''), {
        headers: { authorization: `Bearer ${keys.enterprise}`, prefer: 'odata.maxpagesize=1' },
      });
      paged.push(...page.body.value.map((c: any) => c.certificate_id));
      link = page.body['@odata.nextLink'];
    }
    expect(paged).toEqual(res.body.value.map((c: any) => c.certificate_id));
    const active = await odata('Certificates', '$filter=revoked_at eq null and total_kg_co2e gt 0&$select=certificate_id');
    expect(active.body.value.map((c: any) => c.certificate_id).sort()).toEqual([issued[0]!.id, issued[1]!.id].sort());
    const metals = await odata(
      'Certificates',
      '$filter=adpe_kg_sb_eq gt 0 and revoked_at eq null&$orderby=pe_mj desc&$select=certificate_id,pe_mj',
    );
    expect(metals.status, JSON.stringify(metals.body)).toBe(200);
    expect(metals.body.value.map((c: any) => c.certificate_id).sort()).toEqual([issued[0]!.id, issued[1]!.id].sort());
    expect(metals.body.value.map((c: any) => Object.keys(c).sort())).toEqual([
      ['certificate_id', 'pe_mj'],
      ['certificate_id', 'pe_mj'],
    ]);
    const revokedAt = (await prisma().certificate.findUniqueOrThrow({ where: { id: issued[2]!.id } })).revoked_at!;
    expect(res.headers.get('x-service-data-freshness')).toBe(revokedAt.toISOString());
  });
});

const CREATE = `mutation Create($input: SbtiTargetInput!) { createSbtiTarget(input: $input) {
  id name scope base_year base_year_kg_co2e target_year reduction_pct status
  progress { target_kg_co2e current_kg_co2e expected_kg_co2e achieved_reduction_pct progress_pct on_track measured_phases measured_at } } }`;
const UPDATE = `mutation Update($id: ID!, $patch: SbtiTargetPatch!) { updateSbtiTarget(id: $id, patch: $patch) { id name target_year reduction_pct status } }`;
const DELETE = `mutation Delete($id: ID!) { deleteSbtiTarget(id: $id) }`;
const LIST = `{ sbtiTargets { id name target_year progress { current_kg_co2e } } }`;

const target = (extra: object = {}) => ({
  name: 'Scope 3 hardware',
  scope: 'scope_3',
  base_year: 2020,
  base_year_kg_co2e: 5000,
  target_year: 2030,
  reduction_pct: 42,
  ...extra,
});

describe(`SbtiTargets on ${TEST_DATABASE_KIND}`, () => {
  it('are managed through GraphQL by business and enterprise organisations, validated, and audited', async () => {
    const pro = await t.graphql(CREATE, { input: target() }, keys.pro);
    expect(pro.body.errors[0].extensions.code).toBe('OPERATION_NOT_APPROVED');

    const created = await t.graphql(CREATE, { input: target({ name: '  Scope 3 hardware  ' }) }, keys.business);
    expect(created.body.errors).toBeUndefined();
    const row = created.body.data.createSbtiTarget;
    expect(row).toMatchObject({
      name: 'Scope 3 hardware',
      scope: 'scope_3',
      base_year: 2020,
      base_year_kg_co2e: 5000,
      target_year: 2030,
      reduction_pct: 42,
      status: 'committed',
    });
    // An organisation without calculated assets: nothing measured yet.
    expect(row.progress).toEqual({
      target_kg_co2e: 2900,
      current_kg_co2e: null,
      expected_kg_co2e: expect.any(Number),
      achieved_reduction_pct: null,
      progress_pct: null,
      on_track: null,
      measured_phases: ['production', 'transport', 'end_of_life'],
      measured_at: null,
    });

    const invalid: [object, string, RegExp][] = [
      [{ base_year: 2010 }, 'input.base_year', /from 2015 to/],
      [{ base_year: new Date().getUTCFullYear() + 1, target_year: 2049 }, 'input.base_year', /from 2015 to/],
      [{ target_year: 2020 }, 'input.target_year', /after base_year \(2020\)/],
      [{ target_year: 2051 }, 'input.target_year', /at most 2050/],
      [{ reduction_pct: 0 }, 'input.reduction_pct', /more than 0/],
      [{ reduction_pct: 100.5 }, 'input.reduction_pct', /at most 100/],
      [{ base_year_kg_co2e: -1 }, 'input.base_year_kg_co2e', /more than 0/],
      [{ name: '   ' }, 'input.name', /must not be empty/],
    ];
    for (const [change, field, reason] of invalid) {
      const res = await t.graphql(CREATE, { input: target(change) }, keys.business);
      expect([field, res.body.errors?.[0]?.extensions?.code]).toEqual([field, 'INVALID_PARAMETER']);
      expect(res.body.errors[0].extensions.details.startsWith(`${field}: `)).toBe(true);
      expect(res.body.errors[0].extensions.details).toMatch(reason);
    }
    expect((await t.graphql(CREATE, { input: target({ scope: 'scope_9' }) }, keys.business)).body.errors[0]).toMatchObject({
      message: "Invalid parameter 'input.scope'",
      extensions: { code: 'INVALID_PARAMETER' },
    });
    expect(
      (await t.graphql(CREATE, { input: target({ name: 'x'.repeat(SBTI_RULES.maxNameLength + 1) }) }, keys.business)).body.errors,
    ).toBeDefined();

    const updated = await t.graphql(UPDATE, { id: row.id, patch: { target_year: 2035, status: 'validated' } }, keys.business);
    expect(updated.body.data.updateSbtiTarget).toEqual({
      id: row.id,
      name: 'Scope 3 hardware',
      target_year: 2035,
      reduction_pct: 42,
      status: 'validated',
    });
    const badPatch = await t.graphql(UPDATE, { id: row.id, patch: { target_year: 2019 } }, keys.business);
    expect(badPatch.body.errors[0].extensions.details).toMatch(/^patch\.target_year: must be a year after base_year \(2020\)/);
    // Another organisation's target answers like a missing one.
    expect((await t.graphql(UPDATE, { id: row.id, patch: { name: 'Taken' } }, keys.enterprise)).body.errors[0].extensions.code).toBe(
      'NOT_FOUND',
    );
    expect((await t.graphql(DELETE, { id: row.id }, keys.enterprise)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await t.graphql(DELETE, { id: 'not-a-uuid' }, keys.business)).body.errors[0].extensions.code).toBe('INVALID_PARAMETER');

    expect((await t.graphql(DELETE, { id: row.id }, keys.business)).body.data.deleteSbtiTarget).toBe(row.id);
    expect((await t.graphql(LIST, {}, keys.business)).body.data.sbtiTargets).toEqual([]);
    const audit = await prisma().auditLog.findMany({
      where: { org_id: orgs.business!, subject_id: row.id },
      orderBy: { created_at: 'asc' },
    });
    expect(audit.map((a) => a.event)).toEqual([SBTI_AUDIT_EVENTS.created, SBTI_AUDIT_EVENTS.updated, SBTI_AUDIT_EVENTS.deleted]);
    expect(audit[1]!.data).toEqual({ changed: { target_year: 2035, status: 'validated' } });
  });

  it(`hold at most ${SBTI_RULES.maxTargetsPerOrganisation} per organisation, also when created concurrently`, async () => {
    expect(await prisma().sbtiTarget.count({ where: { org_id: orgs.business! } })).toBe(0);
    const results = await Promise.all(
      Array.from({ length: SBTI_RULES.maxTargetsPerOrganisation + 5 }, (_, i) =>
        t.graphql(CREATE, { input: target({ name: `T${i}` }) }, keys.business),
      ),
    );
    const codes = results.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'ok');
    expect(codes.filter((c) => c === 'ok')).toHaveLength(SBTI_RULES.maxTargetsPerOrganisation);
    expect(codes.filter((c) => c === 'TOO_MANY_SBTI_TARGETS')).toHaveLength(5);
    expect(await prisma().sbtiTarget.count({ where: { org_id: orgs.business! } })).toBe(SBTI_RULES.maxTargetsPerOrganisation);
  });

  it('carry progress against the current inventory, in GraphQL and in OData', async () => {
    const sums = await prisma().monthlyEmission.aggregate({
      where: { org_id: orgs.enterprise! },
      _sum: { production_kg: true, transport_kg: true, use_phase_kg: true, end_of_life_kg: true },
    });
    const scope3 = sums._sum.production_kg!.toNumber() + sums._sum.transport_kg!.toNumber() + sums._sum.end_of_life_kg!.toNumber();
    const base = Math.round(scope3 * 2);
    const created = await t.graphql(
      CREATE,
      { input: target({ base_year_kg_co2e: base, reduction_pct: 40, base_year: 2020, target_year: 2030 }) },
      keys.enterprise,
    );
    const progress = created.body.data.createSbtiTarget.progress;
    const achieved = ((base - scope3) / base) * 100;
    const share = Math.min(1, (new Date().getUTCFullYear() - 2020) / 10);
    expect(progress.current_kg_co2e).toBeCloseTo(scope3, 3);
    expect(progress.target_kg_co2e).toBeCloseTo(base * 0.6, 3);
    expect(progress.achieved_reduction_pct).toBeCloseTo(achieved, 2);
    expect(progress.progress_pct).toBeCloseTo((achieved / 40) * 100, 2);
    expect(progress.expected_kg_co2e).toBeCloseTo(base - base * 0.4 * share, 3);
    expect(progress.on_track).toBe(scope3 <= base - base * 0.4 * share);
    await t.graphql(
      CREATE,
      { input: target({ name: 'Use phase', scope: 'scope_1_2', base_year_kg_co2e: 1000, reduction_pct: 50 }) },
      keys.enterprise,
    );

    const res = await odata('SbtiTargets', '$select=name,scope,current_kg_co2e,progress_pct,on_track&$orderby=name');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toEqual([
      {
        name: 'Scope 3 hardware',
        scope: 'scope_3',
        current_kg_co2e: progress.current_kg_co2e,
        progress_pct: progress.progress_pct,
        on_track: progress.on_track,
      },
      {
        name: 'Use phase',
        scope: 'scope_1_2',
        current_kg_co2e: Math.round(sums._sum.use_phase_kg!.toNumber() * 1000) / 1000,
        progress_pct: expect.any(Number),
        on_track: expect.any(Boolean),
      },
    ]);
    const notFilterable = await odata('SbtiTargets', '$filter=progress_pct gt 10');
    expect([notFilterable.status, notFilterable.body.error.code]).toEqual([400, 'PROPERTY_NOT_QUERYABLE']);
    expect((await odata('SbtiTargets', '$orderby=on_track')).body.error.code).toBe('PROPERTY_NOT_QUERYABLE');
    const filtered = await odata('SbtiTargets', "$filter=scope eq 'scope_3' and target_year le 2030&$count=true");
    expect(filtered.body['@odata.count']).toBe(1);
    // The progress follows the inventory: new assets change the figures, the freshness and the proof hash.
    const hash = res.headers.get('x-service-proof-hash');
    await importAssets([device('R-9', { brand: 'Lenovo', model: 'ThinkPad T14', purchase_date: '2025-05-05' })]);
    const later = await odata('SbtiTargets', '$select=name,scope,current_kg_co2e,progress_pct,on_track&$orderby=name');
    expect(later.body.value[0].current_kg_co2e).toBeGreaterThan(progress.current_kg_co2e);
    expect(later.headers.get('x-service-proof-hash')).not.toBe(hash);
    expect(Date.parse(later.headers.get('x-service-data-freshness')!)).toBeGreaterThan(
      Date.parse(res.headers.get('x-service-data-freshness')!),
    );
  });
});
