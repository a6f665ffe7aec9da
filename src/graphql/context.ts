import type { PrismaClient } from '../db/database.ts';
import type { Caller } from '../auth/caller.ts';
import type { Services } from '../services.ts';

export interface GraphQLContext {
  /** Prisma scoped to the caller's organisation (src/auth/org-scope.ts); global reference data passes through. */
  prisma: PrismaClient;
  caller: Caller;
  services: Services;
}
