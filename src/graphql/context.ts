import type { PrismaClient } from '../db/database.ts';
import type { Caller } from '../auth/caller.ts';
import type { Services } from '../services.ts';

export interface GraphQLContext {
  /** Prisma scoped to the caller's organisation (src/auth/org-scope.ts); global reference data passes through. */
  prisma: PrismaClient;
  caller: Caller;
  services: Services;
}

/** The context of a caller's operation: GraphQL's and SOFA's (Yoga's `context`) and the REST fast path's alike. */
export const graphqlContext = (services: Services, caller: Caller): GraphQLContext => ({
  // GraphQL and every REST route alike: a test key's caller already names its sandbox (src/auth/caller.ts).
  prisma: services.scopes.forCaller(caller),
  services,
  caller,
});
