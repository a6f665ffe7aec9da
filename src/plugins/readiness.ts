import { useReadinessCheck, type Plugin } from 'graphql-yoga';
import type { Database } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import { currentRequest } from '../observability/request-context.ts';

export interface ReadinessOptions {
  /** The route of the check (GET in the route table; other methods get its 405). */
  endpoint: string;
  /** True once the instance drains for a shutdown. */
  isDraining: () => boolean;
  /** The database a ready instance reaches. */
  database: Pick<Database, 'kind' | 'prisma'>;
  log: Logger;
}

/**
 * Whether to send this instance traffic: 200 {"status":"ready","database":kind}; 503
 * {"status":"draining"} once it drains, so load balancers stop sending; 503 {"status":"unavailable",
 * "database":kind} when the database does not answer `SELECT 1`. `lcf worker` answers with it too.
 */
export async function readinessAnswer({ isDraining, database, log }: Omit<ReadinessOptions, 'endpoint'>): Promise<Response> {
  if (isDraining()) return Response.json({ status: 'draining' }, { status: 503 });
  try {
    await database.prisma.$queryRaw`SELECT 1`;
    return Response.json({ status: 'ready', database: database.kind });
  } catch (error) {
    log.warn({ err: error }, 'readiness check failed');
    return Response.json({ status: 'unavailable', database: database.kind }, { status: 503 });
  }
}

export function useReadiness({ endpoint, ...options }: ReadinessOptions): Plugin {
  const readiness = useReadinessCheck({ endpoint, check: () => readinessAnswer(options) });
  return {
    ...readiness,
    // Yoga's check answers any method and every URL ending in the endpoint: only the route table's GET reaches it.
    onRequest: (payload) => (currentRequest()?.route?.route?.pattern === endpoint ? readiness.onRequest?.(payload) : undefined),
  };
}
