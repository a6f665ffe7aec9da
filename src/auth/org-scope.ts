import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../db/database.ts';
import { forbidden } from '../errors/api-error.ts';

const models = getDatamodel().datamodel.models;

/** Models whose rows belong to one organisation: every model with an `org_id`, plus Organization itself. */
export const ORG_OWNED_MODELS: ReadonlySet<string> = new Set([
  'Organization',
  ...Object.entries(models)
    .filter(([, m]) => m.fields.some((f) => f.name === 'org_id'))
    .map(([name]) => name),
]);

const WHERE_OPERATIONS = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany',
]);
const CREATE_OPERATIONS = new Set(['create', 'createMany', 'createManyAndReturn']);

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
 * (products, factors, categories, …) pass through.
 *
 * Resolvers receive this client as `ctx.prisma`, so they cannot forget the filter.
 */
export function scopeToOrganization(prisma: PrismaClient, orgId: string | null): PrismaClient {
  return prisma.$extends({
    name: 'organization-scope',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (!ORG_OWNED_MODELS.has(model)) return query(args);
          if (orgId === null) {
            throw forbidden('NO_ORGANIZATION_CONTEXT', 'Organisation data needs an API key with organisation context');
          }
          const column = ownerColumn(model);
          const a = (args ?? {}) as QueryArgs;
          if (WHERE_OPERATIONS.has(operation)) {
            a.where = confine(a.where, column, orgId);
          } else if (CREATE_OPERATIONS.has(operation)) {
            a.data = Array.isArray(a.data) ? a.data.map((row) => ({ ...row, [column]: orgId })) : { ...(a.data as object), [column]: orgId };
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

  for(orgId: string | null): PrismaClient {
    let client = this.clients.get(orgId);
    if (!client) {
      if (this.clients.size >= 1_000) this.clients.clear();
      client = scopeToOrganization(this.prisma, orgId);
      this.clients.set(orgId, client);
    }
    return client;
  }
}
