import type { PrismaClient } from '../db/database.ts';
import type { Caller } from '../auth/caller.ts';
import type { Services } from '../services.ts';

export interface GraphQLContext {
  /** Client for global reference data; organisation-owned data goes through `caller`'s scoped client. */
  prisma: PrismaClient;
  caller: Caller;
  services: Services;
}
