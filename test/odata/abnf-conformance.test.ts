import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toApiError } from '../../src/errors/render.ts';
import type { EntitySetDef, PropertyDef } from '../../src/odata/entity-sets.ts';
import { parseFilterExpression, printExpression } from '../../src/odata/expression.ts';
import { filterWhere } from '../../src/odata/prisma-query.ts';
import { parseQuery } from '../../src/odata/query-options.ts';

/**
 * The $filter cases of the OASIS OData ABNF test corpus (fixtures/odata-abnf-filter-cases.json, with
 * its attribution), run through the interface's own parsing and translation. The corpus has no data
 * model; the properties it names are given types here.
 */
interface Case {
  name: string;
  rule: string;
  input: string;
  failAt?: number;
  kind: 'expression' | 'query';
  text: string;
  expect: 'accept' | 'refuse' | 'outside' | 'ignore';
}
const corpus = JSON.parse(readFileSync(new URL('./fixtures/odata-abnf-filter-cases.json', import.meta.url), 'utf8')) as { cases: Case[] };

const property = (name: string, type: PropertyDef['type']): PropertyDef => ({ name, type, nullable: true, field: [name] });
const MODEL: EntitySetDef = {
  name: 'Corpus',
  entityType: 'Corpus',
  model: 'product',
  key: 'ID',
  organisationData: false,
  freshnessFields: [],
  description: 'The properties the corpus cases name',
  properties: [
    property('ID', 'Edm.Int32'),
    ...['Name', 'CompanyName', 'Street', 'City', 'FirstName', 'LastName', 'Title', 'CountryCode'].map((name) =>
      property(name, 'Edm.String'),
    ),
    property('Price', 'Edm.Decimal'),
    property('Size', 'Edm.Double'),
    property('Rating', 'Edm.Int32'),
    property('Age', 'Edm.Int32'),
    property('Completed', 'Edm.Boolean'),
    property('ReleaseDate', 'Edm.Date'),
    property('BirthDate', 'Edm.DateTimeOffset'),
    property('style', { name: 'Sales.Pattern', members: ['Yellow', 'Red', 'Blue'] }),
  ],
  navigation: ['Products', 'Supplier', 'Items', 'DirectReports', 'Customers', 'Countries', 'Manager', 'Product'].map((name) => ({
    name,
    target: 'Corpus',
    collection: true,
  })),
};

type Outcome = { status: 200; filter: boolean } | { status: number; code: string };

function run(c: Case): Outcome {
  try {
    if (c.kind === 'query') return { status: 200, filter: parseQuery(MODEL, new URLSearchParams(c.text)).filter !== undefined };
    // Expression inputs are in URL syntax, as the option would arrive before decoding.
    let text = c.text;
    try {
      text = decodeURIComponent(text);
    } catch {
      // not percent-encoded
    }
    const expression = parseFilterExpression(text, MODEL);
    filterWhere(expression);
    // The canonical text (the audit log's) must parse back into the same expression.
    if (!isDeepStrictEqual(parseFilterExpression(printExpression(expression), MODEL), expression))
      return { status: 500, code: 'CANONICAL_TEXT_DIFFERS' };
    return { status: 200, filter: true };
  } catch (error) {
    const apiError = toApiError(error);
    return { status: apiError.status, code: apiError.code };
  }
}

describe('OASIS OData ABNF $filter corpus', () => {
  const results = corpus.cases.map((c) => ({ c, outcome: run(c) }));
  const tally = (expect: Case['expect']) => {
    const cases = results.filter((r) => r.c.expect === expect);
    return { total: cases.length, cases };
  };

  it('accepts every case in the supported subset', () => {
    const { total, cases } = tally('accept');
    const failed = cases.filter((r) => !(r.outcome.status === 200 && 'filter' in r.outcome && r.outcome.filter));
    console.info(`ODATA ABNF conformance: supported subset ${total - failed.length}/${total} passed`);
    expect(failed.map((r) => [r.c.input, r.outcome])).toEqual([]);
    expect(total).toBe(30);
  });

  it('refuses every negative case with 400', () => {
    const { total, cases } = tally('refuse');
    const failed = cases.filter((r) => r.outcome.status !== 400);
    console.info(`ODATA ABNF conformance: negative cases ${total - failed.length}/${total} refused with 400`);
    expect(failed.map((r) => [r.c.input, r.outcome])).toEqual([]);
    expect(total).toBe(9);
  });

  it('refuses the cases outside the subset with 501 or 400, never accepting them or failing', () => {
    const { total, cases } = tally('outside');
    const failed = cases.filter((r) => r.outcome.status !== 501 && r.outcome.status !== 400);
    const notImplemented = cases.filter((r) => r.outcome.status === 501).length;
    console.info(
      `ODATA ABNF conformance: outside the subset ${total - failed.length}/${total} refused (${notImplemented} with 501, ${total - notImplemented} with 400)`,
    );
    expect(failed.map((r) => [r.c.input, r.outcome])).toEqual([]);
    // Functions, arithmetic, lambdas and aliases are named as not implemented, not as bad syntax.
    for (const input of [
      'tolower(CompanyName)',
      'Price add 2.45 eq 5.00',
      'Products/any(lambda:true)',
      "$filter=contains(Title,@word)&@word='Black'",
      "style has Sales.Pattern'Yellow'",
    ]) {
      expect(results.find((r) => r.c.input === input)?.outcome).toEqual({ status: 501, code: 'ODATA_NOT_IMPLEMENTED' });
    }
  });

  it('refuses the 4.01 option without $ (a custom option named like a system option), naming $filter', () => {
    const [dollarless] = tally('ignore').cases;
    expect([dollarless!.c.input, dollarless!.outcome]).toEqual(['filter=true', { status: 400, code: 'UNKNOWN_PARAMETER' }]);
  });
});
