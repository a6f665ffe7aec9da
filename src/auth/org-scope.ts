import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../db/database.ts';
import { forbidden } from '../errors/api-error.ts';
import type { Caller } from './caller.ts';
import { SANDBOX_READ_ONLY_REASON } from './access.ts';

const models = getDatamodel().datamodel.models;

/** Models whose rows belong to one organisation: every model with an `org_id`, plus Organization itself. */
export const ORG_OWNED_MODELS: ReadonlySet<string> = new Set([
  'Organization',
  ...Object.entries(models)
    .filter(([, m]) => m.fields.some((f) => f.name === 'org_id'))
    .map(([name]) => name),
]);

const READ_OPERATIONS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
]);
const WHERE_OPERATIONS = new Set([...READ_OPERATIONS, 'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany']);
const CREATE_OPERATIONS = new Set(['create', 'createMany', 'createManyAndReturn']);

const readOnlyRefusal = () => forbidden('SANDBOX_READ_ONLY', SANDBOX_READ_ONLY_REASON);

function ownerColumn(model: string) {
  return model === 'Organization' ? 'id' : 'org_id';
}

/** The filter plus the owner column; an owner condition the caller gave is kept (ANDed), never replaced. */
function confine(where: Record<string, unknown> | undefined, column: string, orgId: string): Record<string, unknown> {
  if (!where || !(column in where)) return { ...where, [column]: orgId };
  const { [column]: requested, AND, ...rest } = where;
  const and = AND === undefined ? [] : Array.isArray(AND) ? AND : [AND];
  return { ...rest, [column]: orgId, AND: [...and, { [column]: requested }] };
}

type QueryArgs = { where?: Record<string, unknown>; data?: unknown; create?: Record<string, unknown> };

/**
 * The one place organisation data is scoped to the caller. Every query on an organisation-owned
 * model through this client is confined to `orgId` (filters get the owner column, creates set it);
 * with `orgId` null (no organisation context) any such query is refused. Global reference models
 * (products, factors, categories, …) pass through. A read-only scope (the demo sandbox) refuses
 * every write to organisation data and every raw statement with 403 SANDBOX_READ_ONLY.
 *
 * Resolvers receive this client as `ctx.prisma`, so they cannot forget the filter.
 */
export function scopeToOrganization(prisma: PrismaClient, orgId: string | null, { readOnly = false } = {}): PrismaClient {
  const refuseRaw = () => {
    throw readOnlyRefusal();
  };
  return prisma.$extends({
    name: 'organization-scope',
    query: {
      // Raw SQL carries its own organisation filter and may write: not run on a read-only scope.
      ...(readOnly ? { $queryRaw: refuseRaw, $executeRaw: refuseRaw, $queryRawUnsafe: refuseRaw, $executeRawUnsafe: refuseRaw } : {}),
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (!ORG_OWNED_MODELS.has(model)) return query(args);
          if (orgId === null) {
            throw forbidden('NO_ORGANIZATION_CONTEXT', 'Organisation data needs an API key with organisation context');
          }
          if (readOnly && !READ_OPERATIONS.has(operation)) throw readOnlyRefusal();
          const column = ownerColumn(model);
          const a = (args ?? {}) as QueryArgs;
          if (WHERE_OPERATIONS.has(operation)) {
            a.where = confine(a.where, column, orgId);
          } else if (CREATE_OPERATIONS.has(operation)) {
            a.data = Array.isArray(a.data)
              ? a.data.map((row) => ({ ...row, [column]: orgId }))
              : { ...(a.data as object), [column]: orgId };
          } else if (operation === 'upsert') {
            a.where = confine(a.where, column, orgId);
            a.create = { ...a.create, [column]: orgId };
          } else {
            throw forbidden('UNSCOPED_OPERATION', `${operation} on ${model} is not available to organisation callers`);
          }
          return query(a as typeof args);
        },
      },
    },
  }) as unknown as PrismaClient;
}

/** Scoped clients are reused per organisation: building an extension per request would cost more than the query. */
export class OrganizationScopes {
  private readonly clients = new Map<string | null, PrismaClient>();

  constructor(private readonly prisma: PrismaClient) {}

  for(orgId: string | null, readOnly = false): PrismaClient {
    const key = readOnly ? `read-only:${orgId}` : orgId;
    let client = this.clients.get(key);
    if (!client) {
      if (this.clients.size >= 1_000) this.clients.clear();
      client = scopeToOrganization(this.prisma, orgId, { readOnly });
      this.clients.set(key, client);
    }
    return client;
  }

  /** The client of the organisation data `caller` reaches (Caller.orgId: the key's organisation or its sandbox), on every interface. */
  forCaller(caller: Caller): PrismaClient {
    if (caller.kind !== 'key') return this.for(null);
    if (caller.readOnly) return this.for(caller.orgId, true);
    return this.for(caller.orgContext ? caller.orgId : null);
  }
}
