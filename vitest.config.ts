import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node resolves 'graphql' to its CommonJS build (no exports map); Vite would pick the ESM build
  // through the 'module' field. One instance everywhere, as at run time.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each test file gets its own database, a copy of one prepared here; files run in parallel on the two cores.
    pool: 'forks',
    // Vitest's default (cores - 1) runs one file at a time on two cores, while test files spend much
    // of their time waiting on servers, child processes and the database.
    maxWorkers: Math.max(2, availableParallelism()) + 1,
    // Files run one after another in a worker share its loaded modules (about 1 s of imports per file
    // saved); each file still opens its own database and app. A file that mocks a module reloads it.
    isolate: false,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
