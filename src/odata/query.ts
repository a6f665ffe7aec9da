/**
 * One entity-set request: the page of rows (server-driven paging by keyset), the count and the data
 * freshness read in one snapshot, the rows as OData JSON, their proof hash, and the audit-log row
 * whose id is the proof. Organisation data is read only through the caller's scoped client.
 */
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { allProperties, isEnum, keyProperty, type ComputedRows, type EntitySetDef, type PropertyDef } from './entity-sets.ts';
import { isAfter, matches, rowOrder } from './memory-query.ts';
import {
  afterWhere,
  all,
  filterWhere,
  nest,
  orderByOf,
  readField,
  selectOf,
  whereArgument,
  yearSpanProperties,
  type Where,
} from './prisma-query.ts';
import { encodeSkipToken, normalisedQuery, PAGE_SIZE, MAX_TOP, type ODataQuery } from './query-options.ts';
import { proofHash } from './proof.ts';

export const ODATA_AUDIT_EVENT = 'odata.query';

export interface QueryResult {
  rows: Record<string, unknown>[];
  count?: number;
  /** The query of the next page (client options, $top left, $skiptoken) when more rows remain. */
  next?: URLSearchParams;
  freshness: Date;
  hash: string;
  proofId: string;
  pageSize: number;
}

interface Delegate {
  findMany(args: object): Prisma.PrismaPromise<Record<string, unknown>[]>;
  findFirst(args: object): Prisma.PrismaPromise<Record<string, unknown> | null>;
  count(args: object): Prisma.PrismaPromise<number>;
}

/** A property's JSON value: dates as YYYY-MM-DD, instants in ISO 8601 UTC, decimals as numbers. */
function jsonValue(property: PropertyDef, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (isEnum(property.type)) return raw;
  switch (property.type) {
    case 'Edm.Date':
      return (raw as Date).toISOString().slice(0, 10);
    case 'Edm.DateTimeOffset':
      return (raw as Date).toISOString();
    case 'Edm.Decimal':
      return (raw as Prisma.Decimal).toNumber();
    default:
      return raw;
  }
}

const latest = (dates: readonly (Date | null | undefined)[]) =>
  dates.reduce<Date | null>((max, d) => (d && (!max || d > max) ? d : max), null);

export async function runEntityQuery(
  prisma: PrismaClient,
  caller: KeyCaller,
  query: ODataQuery,
  maxPageSize?: number,
): Promise<QueryResult> {
  const { set } = query;
  // $top rows in one page (1000 without $top), unless the client prefers smaller pages.
  const pageSize = Math.min(maxPageSize ?? query.top ?? PAGE_SIZE, query.top ?? MAX_TOP);
  if (set.rows) return runComputedQuery(prisma, caller, query, pageSize, set.rows);
  const model = set.model!;

  const output = query.select ?? allProperties(set);
  const computed = set.computed;
  // Read what is shown, what the order and the next token need, and what computed properties are made from.
  const needed = [...new Set([...output, ...query.orderBy.map((o) => o.property), keyProperty(set), ...(computed ? set.properties : [])])];
  const now = new Date();
  const freshnessProperties = set.freshnessFields.map((name) => set.properties.find((p) => p.name === name)!);
  // The latest (or first) value of a property, as ORDER BY … LIMIT 1 (an index walk; Prisma's aggregate reads every row).
  const extreme = (client: PrismaClient, p: PropertyDef, descending: boolean) =>
    (client as unknown as Record<NonNullable<EntitySetDef['model']>, Delegate>)[model].findFirst({
      ...(p.nullable ? { where: nest(p.field!, { not: null }) } : {}),
      select: selectOf([p]),
      orderBy: orderByOf([{ property: p, descending, nullable: false }]),
    });

  // One snapshot for the year spans of month()/day(), the page, the freshness, the data of computed properties and the count.
  const results = await prisma.$transaction(
    async (transaction) => {
      // The transaction's client has the delegates (and the organisation scope) of the client it was opened on.
      const tx = transaction as unknown as PrismaClient;
      const years = new Map<PropertyDef, { first: number; last: number } | null>();
      for (const p of yearSpanProperties(query.filter)) {
        const [first, last] = [await extreme(tx, p, false), await extreme(tx, p, true)];
        const year = (row: Record<string, unknown> | null) => (readField(row!, p) as Date).getUTCFullYear();
        years.set(p, first && last ? { first: year(first), last: year(last) } : null);
      }
      const filtered: Where = query.filter ? filterWhere(query.filter, years) : all();
      const where = whereArgument(filtered);
      const pageWhere = whereArgument(query.after ? all(filtered, afterWhere(query.orderBy, query.after)) : filtered);
      const delegate = (tx as unknown as Record<NonNullable<EntitySetDef['model']>, Delegate>)[model];
      const read: unknown[] = [
        await delegate.findMany({
          where: pageWhere,
          orderBy: orderByOf(query.orderBy),
          select: selectOf(needed),
          skip: query.skip,
          take: pageSize + 1,
        }),
      ];
      for (const p of freshnessProperties) read.push(await extreme(tx, p, true));
      if (computed) read.push(await computed.load(tx));
      if (query.count) read.push(await delegate.count({ where }));
      return read;
    },
    { isolationLevel: 'RepeatableRead' },
  );
  const found = results[0] as Record<string, unknown>[];
  const freshest = freshnessProperties.map((p, i) =>
    results[1 + i] ? (readField(results[1 + i] as Record<string, unknown>, p) as Date | null) : null,
  );
  const loaded = computed ? results[1 + freshnessProperties.length] : undefined;
  const count = query.count ? (results.at(-1) as number) : undefined;
  const more = found.length > pageSize && (query.top === undefined || query.top > pageSize);
  const page = found.slice(0, pageSize);

  const values = page.map((raw) => {
    let row = Object.fromEntries(needed.filter((p) => p.field).map((p) => [p.name, jsonValue(p, readField(raw, p))]));
    if (computed) row = computed.apply(row, loaded, now);
    return Object.fromEntries(output.map((p) => [p.name, row[p.name] ?? null]));
  });

  const next = more ? nextPage(query, pageSize, page.at(-1)!, readField) : undefined;
  const freshness = latest([...freshest, computed ? computed.freshness(loaded) : null]) ?? now;
  return recorded(prisma, caller, query, { rows: values, count, next, freshness, pageSize, more });
}

/** A computed set (entity-sets.ts `rows`): its rows for the caller's organisation, filtered, sorted and paged in memory; fresh as of now. */
async function runComputedQuery(
  prisma: PrismaClient,
  caller: KeyCaller,
  query: ODataQuery,
  pageSize: number,
  source: ComputedRows,
): Promise<QueryResult> {
  const now = new Date();
  const all = await source.rows(prisma, caller.orgId, query.parameters, now);
  const matching = (query.filter ? all.filter((row) => matches(query.filter!, row)) : all).sort(rowOrder(query.orderBy));
  const remaining = query.after ? matching.filter((row) => isAfter(query.orderBy, query.after!, row)) : matching;
  const found = remaining.slice(query.skip, query.skip + pageSize + 1);
  const more = found.length > pageSize && (query.top === undefined || query.top > pageSize);
  const page = found.slice(0, pageSize);
  const output = query.select ?? allProperties(query.set);
  const rows = page.map((row) => Object.fromEntries(output.map((p) => [p.name, jsonValue(p, row[p.name])])));
  const next = more ? nextPage(query, pageSize, page.at(-1)!, (row, p) => row[p.name]) : undefined;
  return recorded(prisma, caller, query, { rows, count: query.count ? matching.length : undefined, next, freshness: now, pageSize, more });
}

/** The query of the page after `last`: the client's options, $top less this page, and the keyset token. */
function nextPage(
  query: ODataQuery,
  pageSize: number,
  last: Record<string, unknown>,
  read: (row: Record<string, unknown>, property: PropertyDef) => unknown,
): URLSearchParams {
  const next = new URLSearchParams();
  for (const [name, value] of query.parameters) next.set(name, value);
  for (const [name, value] of Object.entries(query.text)) if (value !== undefined) next.set(`$${name}`, value);
  if (query.top !== undefined) next.set('$top', String(query.top - pageSize));
  if (query.count) next.set('$count', 'true');
  next.set('$skiptoken', encodeSkipToken(query.orderBy.map((o) => read(last, o.property))));
  return next;
}

/** The proof: the rows' hash and the audit-log row of the query. */
async function recorded(
  prisma: PrismaClient,
  caller: KeyCaller,
  query: ODataQuery,
  result: { rows: Record<string, unknown>[]; count?: number; next?: URLSearchParams; freshness: Date; pageSize: number; more: boolean },
): Promise<QueryResult> {
  const { rows, count, next, freshness, pageSize, more } = result;
  const hash = proofHash(rows);
  const audit = await prisma.auditLog.create({
    data: auditEntry(
      caller,
      ODATA_AUDIT_EVENT,
      { type: 'odata_entity_set', id: query.set.name },
      {
        entity_set: query.set.name,
        query: normalisedQuery(query),
        page_size: pageSize,
        row_count: rows.length,
        ...(count === undefined ? {} : { count }),
        proof_hash: hash,
        data_freshness: freshness.toISOString(),
        more_rows: more,
      },
    ),
    select: { id: true },
  });
  return { rows, count, next, freshness, hash, proofId: audit.id, pageSize };
}
