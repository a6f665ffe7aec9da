import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/** Every SQL statement Prisma sends through the driver adapter, in order. */
export class StatementLog {
  statements: string[] = [];
  get count(): number {
    return this.statements.length;
  }
  /**
   * The statements of a request's own work: not the quota's counters (one statement per request on
   * PostgreSQL, written behind every second on the embedded database) nor the key's lookup (once a second
   * per key), which depend on the counter store and the clock (docs/quotas.md), not on the request.
   */
  get ownWork(): number {
    return this.statements.filter((sql) => !sql.includes('usage_counters') && !sql.includes('api_keys')).length;
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
