import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node resolves 'graphql' to its CommonJS build (no exports map); Vite would pick the ESM build
  // through the 'module' field. One instance everywhere, as at run time.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each test file gets its own PGlite database; files run in parallel on the two cores.
    pool: 'forks',
  },
});
