import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient, type Database } from '../../src/db/database.ts';
import { openTestDatabase } from './database.ts';

/** Every SQL statement Prisma sends through the driver adapter, in order. */
export class StatementLog {
  statements: string[] = [];
  get count(): number {
    return this.statements.length;
  }
  reset(): void {
    this.statements = [];
  }
}

/** Wraps a queryable (adapter or transaction) so that each queryRaw/executeRaw is logged. */
function counting<T extends object>(target: T, log: StatementLog): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (query: { sql: string }, ...rest: unknown[]) => {
          log.statements.push(query.sql);
          return value.call(obj, query, ...rest);
        };
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => counting(await value.apply(obj, args), log);
      }
      return value.bind(obj);
    },
  });
}

export function countingAdapter(factory: SqlDriverAdapterFactory, log: StatementLog): SqlDriverAdapterFactory {
  return new Proxy(factory, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (prop === 'connect') return async () => counting(await factory.connect(), log);
      return typeof value === 'function' ? value.bind(obj) : value;
    },
  });
}

/**
 * The test database of test/support/database.ts, with a Prisma client whose SQL statements are
 * counted (for N+1 checks): PGlite in memory, or a fresh database on TEST_DATABASE_URL.
 */
export async function openCountingTestDatabase(log: StatementLog): Promise<Database & { url?: string }> {
  if (process.env.TEST_DATABASE_URL) {
    const db = await openTestDatabase();
    const prisma = new PrismaClient({ adapter: countingAdapter(new PrismaPg({ connectionString: db.url!, max: 8 }), log) });
    await db.prisma.$disconnect();
    return {
      ...db,
      prisma,
      async close() {
        await prisma.$disconnect();
        await db.close();
      },
    };
  }
  const pglite = new PGlite();
  await pglite.waitReady;
  const prisma = new PrismaClient({ adapter: countingAdapter(new PrismaPGlite(pglite), log) });
  return {
    kind: 'pglite',
    prisma,
    async session() {
      return {
        exec: async (sql) => void (await pglite.exec(sql)),
        query: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
        release: async () => {},
      };
    },
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
