import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_XML } from '../../src/odata/csdl.ts';
import { ENTITY_SETS, allProperties } from '../../src/odata/entity-sets.ts';

/** $metadata against the OASIS CSDL XML schemas (fixtures/csdl-schemas, xmllint from Debian's libxml2-utils, no network). */
const SCHEMA = fileURLToPath(new URL('./fixtures/csdl-schemas/edmx.xsd', import.meta.url));
let dir: string;
let file: string;

async function xmllint(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('xmllint', ['--nonet', ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('xmllint is missing: install Debian package libxml2-utils');
    return { code: Number(e.code), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
const xpath = async (expression: string) => (await xmllint('--xpath', expression, file)).stdout.trim();
const names = async (expression: string) => [...(await xpath(expression)).matchAll(/Name="([^"]*)"/g)].map((m) => m[1]);
const el = (name: string) => `*[local-name()='${name}']`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lcf-csdl-'));
  file = path.join(dir, 'metadata.xml');
  await writeFile(file, METADATA_XML);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('GET /v1/odata/$metadata', () => {
  it('is valid CSDL XML (OData 4.0) by the OASIS schemas', async () => {
    const result = await xmllint('--noout', '--schema', SCHEMA, file);
    expect([result.code, result.stderr.trim()]).toEqual([0, `${file} validates`]);
    expect(METADATA_XML).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<edmx:Edmx xmlns:edmx="http:\/\/docs.oasis-open.org\/odata\/ns\/edmx" Version="4.0">/,
    );
  });

  it('fails validation when the document is wrong (the check can fail)', async () => {
    const broken = path.join(dir, 'broken.xml');
    await writeFile(broken, METADATA_XML.replace('<Property Name="brand"', '<Propertie Name="brand"'));
    expect((await xmllint('--noout', '--schema', SCHEMA, broken)).code).not.toBe(0);
    await writeFile(broken, METADATA_XML.replace('Type="Edm.Guid"', 'Type="Guid"'));
    expect((await xmllint('--noout', '--schema', SCHEMA, broken)).code).not.toBe(0);
  });

  it('declares the seven entity sets with their keys, every property with its Edm type, and navigation', async () => {
    expect(await names(`//${el('EntityContainer')}/${el('EntitySet')}`)).toEqual([
      'Assets',
      'Certificates',
      'Products',
      'EmissionFactors',
      'SbtiTargets',
      'MonthlyEmissions',
      'PeriodEmissions',
    ]);
    for (const set of ENTITY_SETS) {
      const type = `//${el('EntityType')}[@Name='${set.entityType}']`;
      expect(await xpath(`string(${type}/${el('Key')}/${el('PropertyRef')}/@Name)`)).toBe(set.key);
      expect(await names(`${type}/${el('Property')}`)).toEqual(allProperties(set).map((p) => p.name));
      expect(await names(`${type}/${el('NavigationProperty')}`)).toEqual(set.navigation.map((n) => n.name));
    }
    const typeOf = (entity: string, property: string) =>
      xpath(`string(//${el('EntityType')}[@Name='${entity}']/${el('Property')}[@Name='${property}']/@Type)`);
    // The property names the spec shows in use, with their types.
    const asset: Record<string, string> = {
      asset_id: 'Edm.Guid',
      brand: 'Edm.String',
      mpn: 'Edm.String',
      total_kg_co2e: 'Edm.Double',
      purchase_date: 'Edm.Date',
      category: 'Edm.String',
      country: 'Edm.String',
      status: 'Service.AssetStatus',
      created_at: 'Edm.DateTimeOffset',
      // the whole-life ADPe and PE beside the GWP (issue 42)
      adpe_kg_sb_eq: 'Edm.Double',
      pe_mj: 'Edm.Double',
    };
    for (const [property, type] of Object.entries(asset)) expect([property, await typeOf('Asset', property)]).toEqual([property, type]);
    expect(await typeOf('MonthlyEmission', 'total_kg_co2e')).toBe('Edm.Decimal');
    expect(await xpath(`string(//${el('EntityType')}[@Name='MonthlyEmission']/${el('Property')}[@Name='total_kg_co2e']/@Scale)`)).toBe('6');
    // ADPe and PE per phase and whole-life beside it (issue 42): nullable decimals, and how many assets they sum.
    const monthly = (property: string, facet: string) =>
      xpath(`string(//${el('EntityType')}[@Name='MonthlyEmission']/${el('Property')}[@Name='${property}']/@${facet})`);
    const rollupNames = ['adpe', 'pe'].flatMap((c) => {
      const unit = c === 'adpe' ? 'kg_sb_eq' : 'mj';
      return [...['production', 'transport', 'use_phase', 'end_of_life'].map((p) => `${c}_${p}_${unit}`), `${c}_${unit}`];
    });
    for (const property of rollupNames) {
      const scale = property.startsWith('adpe') ? '15' : '9';
      expect([property, await monthly(property, 'Type'), await monthly(property, 'Scale'), await monthly(property, 'Nullable')]).toEqual([
        property,
        'Edm.Decimal',
        scale,
        '', // no Nullable facet: nullable (the CSDL default)
      ]);
    }
    expect([await monthly('impacts_asset_count', 'Type'), await monthly('impacts_asset_count', 'Nullable')]).toEqual([
      'Edm.Int32',
      'false',
    ]);
    expect(await typeOf('SbtiTarget', 'base_year')).toBe('Edm.Int32');
    expect(await typeOf('SbtiTarget', 'on_track')).toBe('Edm.Boolean');
    expect(await xpath(`string(//${el('EntityType')}[@Name='Asset']/${el('Property')}[@Name='brand']/@Nullable)`)).toBe('false');
    expect(await xpath(`string(//${el('EntityType')}[@Name='Asset']/${el('NavigationProperty')}[@Name='certificates']/@Type)`)).toBe(
      'Collection(Service.Certificate)',
    );
    expect(
      await xpath(
        `string(//${el('EntityType')}[@Name='Certificate']/${el('NavigationProperty')}[@Name='asset']/${el('ReferentialConstraint')}/@Property)`,
      ),
    ).toBe('asset_id');
    expect(await xpath(`string(//${el('EntitySet')}[@Name='Assets']/${el('NavigationPropertyBinding')}[@Path='product']/@Target)`)).toBe(
      'Products',
    );
    expect(await names(`//${el('EnumType')}[@Name='AssetStatus']/${el('Member')}`)).toEqual([
      'in_stock',
      'in_use',
      'in_repair',
      'refurbished',
      'resold',
      'recycled',
      'disposed',
    ]);
    // Read-only, no $expand, computed properties neither filterable nor sortable.
    expect(
      await xpath(
        `string(//${el('EntitySet')}[@Name='Assets']/${el('Annotation')}[@Term='Capabilities.ExpandRestrictions']//${el('PropertyValue')}/@Bool)`,
      ),
    ).toBe('false');
    const nonFilterable = await xpath(
      `//${el('EntitySet')}[@Name='SbtiTargets']/${el('Annotation')}[@Term='Capabilities.FilterRestrictions']//${el('PropertyPath')}/text()`,
    );
    expect(nonFilterable.split('\n')).toEqual(ENTITY_SETS.find((s) => s.name === 'SbtiTargets')!.computed!.properties.map((p) => p.name));
  });
});
