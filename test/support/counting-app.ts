import { createTestApp, type TestApp } from './test-app.ts';
import { StatementLog, countingAdapter } from './counting-database.ts';

/**
 * createTestApp over a database whose SQL statements are logged:
 * `statements.reset()` before a request, `statements.count` (or `ownWork`, without the quota and key lookups) after it (N+1 checks).
 */
export async function createCountingTestApp(env: Record<string, string> = {}): Promise<TestApp & { statements: StatementLog }> {
  const statements = new StatementLog();
  const t = await createTestApp(env, { wrapAdapter: (factory) => countingAdapter(factory, statements) });
  return { ...t, statements };
}
