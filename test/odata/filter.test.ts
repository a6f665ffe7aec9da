import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.ts';
import { toApiError } from '../../src/errors/render.ts';
import { entitySetNamed } from '../../src/odata/entity-sets.ts';
import { parseFilterExpression, printExpression, type Expression } from '../../src/odata/expression.ts';
import { afterWhere, filterWhere, orderByOf, whereArgument } from '../../src/odata/prisma-query.ts';
import { normalisedQuery, parseQuery } from '../../src/odata/query-options.ts';

/** $filter to expression to Prisma where, without a database: precedence, null logic, escaping, canonical text, bounds. */
const assets = entitySetNamed('Assets')!;
const products = entitySetNamed('Products')!;
const parse = (text: string, set = assets) => parseFilterExpression(text, set);
const where = (text: string, set = assets) => whereArgument(filterWhere(parse(text, set)));
const shape = (e: Expression): unknown =>
  e.kind === 'const'
    ? e.value
    : e.kind === 'not'
      ? ['not', shape(e.operand)]
      : e.kind === 'and' || e.kind === 'or'
        ? [e.kind, shape(e.left), shape(e.right)]
        : printExpression(e);
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    const e = toApiError(error);
    return { status: e.status, code: e.code, details: e.details };
  }
  throw new Error('expected a failure');
};

describe('$filter precedence', () => {
  it('binds not tighter than and, and tighter than or; parentheses override', () => {
    expect(shape(parse("brand eq 'a' or country eq 'b' and category eq 'c'"))).toEqual([
      'or',
      "brand eq 'a'",
      ['and', "country eq 'b'", "category eq 'c'"],
    ]);
    expect(shape(parse("brand eq 'a' and country eq 'b' or category eq 'c'"))).toEqual([
      'or',
      ['and', "brand eq 'a'", "country eq 'b'"],
      "category eq 'c'",
    ]);
    expect(shape(parse("(brand eq 'a' or country eq 'b') and category eq 'c'"))).toEqual([
      'and',
      ['or', "brand eq 'a'", "country eq 'b'"],
      "category eq 'c'",
    ]);
    expect(shape(parse("not brand eq 'a' and country eq 'b'"))).toEqual(['and', ['not', "brand eq 'a'"], "country eq 'b'"]);
    expect(shape(parse("not brand eq 'a' or country eq 'b' and category eq 'c'"))).toEqual([
      'or',
      ['not', "brand eq 'a'"],
      ['and', "country eq 'b'", "category eq 'c'"],
    ]);
    expect(shape(parse("not (brand eq 'a' and country eq 'b')"))).toEqual(['not', ['and', "brand eq 'a'", "country eq 'b'"]]);
    expect(shape(parse("not not brand eq 'a'"))).toEqual(['not', ['not', "brand eq 'a'"]]);
  });

  it('prints a canonical text that parses back to the same expression', () => {
    const cases: [string, string][] = [
      ["brand  eq 'a' or (country eq 'b' and (category eq 'c'))", "brand eq 'a' or country eq 'b' and category eq 'c'"],
      [
        "(brand eq 'a' or country eq 'b') and not (mpn eq null or contains(mpn,'x''y'))",
        "(brand eq 'a' or country eq 'b') and not (mpn eq null or contains(mpn,'x''y'))",
      ],
      ['total_kg_co2e gt 1.50 and purchase_date le 2024-02-29', 'total_kg_co2e gt 1.5 and purchase_date le 2024-02-29'],
      ['created_at ge 2024-01-01T01:00:00+01:00', 'created_at ge 2024-01-01T00:00:00.000Z'],
      ["5 lt total_kg_co2e and status eq Service.AssetStatus'in_use'", "total_kg_co2e gt 5 and status eq 'in_use'"],
      ['asset_id eq 5A1D3C2B-0000-4000-8000-00000000000A', 'asset_id eq 5a1d3c2b-0000-4000-8000-00000000000a'],
    ];
    for (const [input, canonical] of cases) {
      expect(printExpression(parse(input))).toBe(canonical);
      expect(parse(canonical)).toEqual(parse(input));
    }
  });

  it('gives the same normalised query for the same request, whatever its spelling', () => {
    const text = (q: string) => normalisedQuery(parseQuery(assets, new URLSearchParams(q)));
    expect(text("$filter=(brand eq 'Dell')&$select=brand,mpn&$orderby=brand desc&$count=true")).toBe(
      "$filter=brand eq 'Dell'&$orderby=brand desc,asset_id asc&$select=brand,mpn&$skip=0&$count=true",
    );
    expect(text("$count=true&$orderby=brand  desc&$select=brand,mpn,brand&$filter=brand eq 'Dell'")).toBe(
      text("$filter=(brand eq 'Dell')&$select=brand,mpn&$orderby=brand desc&$count=true"),
    );
    expect(text('$top=10&$skip=5')).toBe('$orderby=asset_id asc&$select=*&$top=10&$skip=5&$count=false');
  });
});

describe('$filter to Prisma', () => {
  it('lets null rows match where OData logic says so (ne, not), and nowhere else', () => {
    expect(where("mpn eq 'x'")).toEqual({ mpn: { equals: 'x' } });
    expect(where("brand ne 'x'")).toEqual({ brand: { not: 'x' } });
    expect(where("mpn ne 'x'")).toEqual({ OR: [{ mpn: null }, { mpn: { not: 'x' } }] });
    expect(where("not (mpn eq 'x')")).toEqual(where("mpn ne 'x'"));
    expect(where("not (mpn ne 'x')")).toEqual(where("mpn eq 'x'"));
    expect(where('not (total_kg_co2e gt 5)')).toEqual({ OR: [{ total_kg_co2e: null }, { total_kg_co2e: { lte: 5 } }] });
    expect(where('total_kg_co2e le null')).toEqual({ total_kg_co2e: null });
    expect(where('total_kg_co2e lt null')).toEqual({ OR: [] });
    expect(where('not (total_kg_co2e lt null)')).toEqual({});
    expect(where("not (contains(mpn,'a') and brand eq 'b')")).toEqual({
      OR: [{ mpn: null }, { AND: [{ mpn: { not: null } }, { NOT: { mpn: { contains: 'a' } } }] }, { brand: { not: 'b' } }],
    });
    // Constants fold away: Prisma never sees an empty AND inside an OR.
    expect(where("false or brand eq 'b'")).toEqual({ brand: { equals: 'b' } });
    expect(where("true and brand eq 'b'")).toEqual({ brand: { equals: 'b' } });
    expect(where("false and brand eq 'b'")).toEqual({ OR: [] });
  });

  it('turns year(), month() and day() into ranges of the column, month() and day() in each year of its values', () => {
    const at = (date: string) => new Date(`${date}T00:00:00Z`);
    const purchaseDate = assets.properties.find((p) => p.name === 'purchase_date')!;
    const within = (text: string, first: number, last: number) =>
      whereArgument(filterWhere(parse(text), new Map([[purchaseDate, { first, last }]])));
    expect(where('year(purchase_date) eq 2024')).toEqual({ purchase_date: { gte: at('2024-01-01'), lt: at('2025-01-01') } });
    expect(where('year(purchase_date) gt 2024')).toEqual({ purchase_date: { gte: at('2025-01-01') } });
    expect(where('year(purchase_date) le 2024')).toEqual({ purchase_date: { lt: at('2025-01-01') } });
    expect(where('year(purchase_date) ne 2024')).toEqual({
      OR: [{ purchase_date: null }, { purchase_date: { lt: at('2024-01-01') } }, { purchase_date: { gte: at('2025-01-01') } }],
    });
    expect(where('year(purchase_date) eq 0')).toEqual({ OR: [] });
    expect(within('month(purchase_date) eq 2', 2023, 2024)).toEqual({
      OR: [
        { purchase_date: { gte: at('2023-02-01'), lt: at('2023-03-01') } },
        { purchase_date: { gte: at('2024-02-01'), lt: at('2024-03-01') } },
      ],
    });
    // Adjacent ranges are one: months 11–12 of one year and 1–2 of the next are not, every month of every year is.
    expect(within('month(purchase_date) ge 1', 2023, 2024)).toEqual({ purchase_date: { gte: at('2023-01-01'), lt: at('2025-01-01') } });
    // February 2024 has no 30th: eleven ranges of a day.
    expect(within('day(purchase_date) eq 30', 2024, 2024)).toEqual({
      OR: ['01', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((m) => ({
        purchase_date: { gte: at(`2024-${m}-30`), lt: at(`2024-${m}-31`) },
      })),
    });
    expect(within('day(purchase_date) lt 3', 2024, 2024).OR).toContainEqual({
      purchase_date: { gte: at('2024-02-01'), lt: at('2024-02-03') },
    });
    // No values: no row has a month.
    expect(whereArgument(filterWhere(parse('month(purchase_date) eq 2'), new Map([[purchaseDate, null]])))).toEqual({ OR: [] });
  });

  it('compares tolower() and toupper() case-insensitively, and text that case folding cannot produce with nothing', () => {
    expect(where("tolower(brand) eq 'hp'")).toEqual({ brand: { in: ['hp'], mode: 'insensitive' } });
    expect(where("tolower(mpn) ne 'hp'")).toEqual({ OR: [{ mpn: null }, { mpn: { notIn: ['hp'], mode: 'insensitive' } }] });
    expect(where("tolower(brand) gt 'hp'")).toEqual({ brand: { gt: 'hp', mode: 'insensitive' } });
    expect(where("contains(toupper(brand),'H%P')")).toEqual({ brand: { contains: 'H\\%P', mode: 'insensitive' } });
    expect(where("tolower(brand) eq 'HP'")).toEqual({ OR: [] });
    expect(where("contains(tolower(brand),'HP')")).toEqual({ OR: [] });
  });

  it('reads the rewritten forms with error positions in the text as sent', () => {
    expect(printExpression(parse("brand in ('a', 'b') and not(total_kg_co2e gt 1.5D)"))).toBe(
      "(brand eq 'a' or brand eq 'b') and not total_kg_co2e gt 1.5",
    );
    expect(printExpression(parse("startswith(brand,'a') eq false"))).toBe("not startswith(brand,'a')");
    expect(failure(() => parse("brand in ('a%/', 'b') and country eqq 'DE'")).details).toMatch(
      /^\$filter: invalid syntax at character 34 /,
    );
  });

  it('escapes LIKE wildcards and decodes doubled quotes', () => {
    expect(where("contains(brand,'50%_\\x')")).toEqual({ brand: { contains: '50\\%\\_\\\\x' } });
    expect(where("startswith(brand,'O''Neil')")).toEqual({ brand: { startsWith: "O'Neil" } });
    expect(where("endswith(mpn,'/a#b?')")).toEqual({ mpn: { endsWith: '/a#b?' } });
    expect(where("brand eq '%20 100%'")).toEqual({ brand: { equals: '%20 100%' } });
  });

  it('compares enumerations in member order and integers with any number', () => {
    expect(where("status gt 'resold'")).toEqual({ status: { in: ['recycled', 'disposed'] } });
    expect(where("not (status le 'in_use')")).toEqual({ status: { in: ['in_repair', 'refurbished', 'resold', 'recycled', 'disposed'] } });
    const year = (f: string) => where(f, products);
    expect(year('release_year gt 2019.5')).toEqual({ release_year: { gt: 2019 } });
    expect(year('release_year ge 2019.5')).toEqual({ release_year: { gte: 2020 } });
    expect(year('release_year lt 2019.5')).toEqual({ release_year: { lt: 2020 } });
    expect(year('release_year eq 2019.5')).toEqual({ OR: [] });
    expect(year('release_year ne 2019.5')).toEqual({});
    expect(year('release_year lt 1000000000000')).toEqual({ release_year: { not: null } });
    expect(year('release_year gt 1000000000000')).toEqual({ OR: [] });
    expect(year('release_year ge -1000000000000')).toEqual({ release_year: { not: null } });
    expect(year('release_year le -2147483648.5')).toEqual({ OR: [] });
  });

  it('orders nulls as OData does, and plainly where the filter leaves no null (so that an index can serve the order)', () => {
    const order = (q: string) => orderByOf(parseQuery(assets, new URLSearchParams(q)).orderBy);
    expect(order('$orderby=total_kg_co2e desc,mpn')).toEqual([
      { total_kg_co2e: { sort: 'desc', nulls: 'last' } },
      { mpn: { sort: 'asc', nulls: 'first' } },
      { id: 'asc' },
    ]);
    expect(order("$orderby=total_kg_co2e desc,mpn,brand&$filter=total_kg_co2e gt 5 and (mpn eq 'a' or startswith(mpn,'b'))")).toEqual([
      { total_kg_co2e: 'desc' },
      { mpn: 'asc' },
      { brand: 'asc' },
      { id: 'asc' },
    ]);
    // ne, or with a branch that allows null, and not keep the explicit order.
    expect(order("$orderby=mpn&$filter=mpn ne 'a'")).toEqual([{ mpn: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }]);
    expect(order("$orderby=mpn&$filter=mpn eq 'a' or brand eq 'b'")).toEqual([{ mpn: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }]);
    expect(order('$orderby=mpn&$filter=not (mpn eq null)')).toEqual([{ mpn: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }]);
    expect(order('$orderby=mpn&$filter=mpn ne null')).toEqual([{ mpn: 'asc' }, { id: 'asc' }]);
  });

  it('continues after the last row in the sort order, nulls first ascending and last descending', () => {
    const total = assets.properties.find((p) => p.name === 'total_kg_co2e')!;
    const key = assets.properties.find((p) => p.name === 'asset_id')!;
    const id = '00000000-0000-4000-8000-000000000001';
    expect(
      afterWhere(
        [
          { property: total, descending: true, nullable: true },
          { property: key, descending: false, nullable: false },
        ],
        [5, id],
      ),
    ).toEqual({
      OR: [{ total_kg_co2e: { lt: 5 } }, { total_kg_co2e: null }, { AND: [{ total_kg_co2e: { equals: 5 } }, { id: { gt: id } }] }],
    });
    expect(
      afterWhere(
        [
          { property: total, descending: false, nullable: true },
          { property: key, descending: false, nullable: false },
        ],
        [null, id],
      ),
    ).toEqual({
      OR: [{ total_kg_co2e: { not: null } }, { AND: [{ total_kg_co2e: null }, { id: { gt: id } }] }],
    });
    expect(
      afterWhere(
        [
          { property: total, descending: true, nullable: true },
          { property: key, descending: false, nullable: false },
        ],
        [null, id],
      ),
    ).toEqual({ AND: [{ total_kg_co2e: null }, { id: { gt: id } }] });
  });
});

describe('$filter refusals', () => {
  it('reports the position of a syntax error in the text as sent, percent signs and slashes included', () => {
    // The parser stops after `country`: character 30 of the text as sent, whatever it was given in between.
    expect(failure(() => parse("brand eq '100%/x' and country eqq 'DE'")).details).toBe(
      "$filter: invalid syntax at character 30 (near \"'100%/x' and country eqq 'DE'\")",
    );
    expect(failure(() => parse("brand eq 'x'   and")).details).toMatch(/^\$filter: invalid syntax at character 13 /);
    expect(failure(() => parse('')).details).toBe('$filter: empty expression at character 1 (near "")');
  });

  it('bounds the work: length, nesting and number of conditions are checked before or while parsing', () => {
    const started = performance.now();
    expect(failure(() => parse(`${'('.repeat(33)}true${')'.repeat(33)}`)).details).toMatch(/more than 32 nested parentheses/);
    expect(failure(() => parse(`brand eq '${'x'.repeat(2_000)}'`))).toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
    const many = Array.from({ length: 101 }, (_, i) => `mpn eq '${i}'`).join(' or ');
    expect(many.length).toBeLessThan(2_000);
    expect(failure(() => parse(many)).details).toBe('$filter: more than 100 conditions');
    expect(parse(`${'('.repeat(32)}true${')'.repeat(32)}`)).toEqual({ kind: 'const', value: true });
    expect(where(`${'not '.repeat(480)}true`)).toEqual({});
    expect(failure(() => parse(`brand eq 'a\u0000'`))).toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('answers any text with a filter or a 400/501, never an unexpected error', () => {
    const token = fc.constantFrom(
      'brand',
      'mpn',
      'total_kg_co2e',
      'purchase_date',
      'status',
      'asset_id',
      'product',
      'certificates',
      'colour',
      '$it',
      '@a',
      'eq',
      'ne',
      'gt',
      'le',
      'and',
      'or',
      'not',
      'has',
      'in',
      'add',
      '(',
      ')',
      ',',
      '/',
      ':',
      "'x'",
      "'O''N'",
      "'",
      '1',
      '-2.5',
      '1e5',
      '2024-02-29',
      '2024-01-01T00:00:00Z',
      'null',
      'true',
      "Service.AssetStatus'in_use'",
      "Service.AssetStatus'a,b'",
      'contains',
      'startswith',
      'tolower',
      'any',
      'all',
      '[1]',
      '{}',
      '%',
      '%25',
      ' ',
      '5a1d3c2b-0000-4000-8000-00000000000a',
      "duration'P1D'",
      '*',
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 14 }), (tokens) => {
        const text = tokens.join(' ').replace(/ ?([(),/]) ?/g, '$1');
        try {
          filterWhere(parse(text));
        } catch (error) {
          if (!(error instanceof ApiError) || ![400, 501].includes(error.status)) throw error;
        }
      }),
      { numRuns: 3_000, seed: 42 },
    );
  });
});
