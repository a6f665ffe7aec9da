import { accessSync, constants, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Temporary files on a memory filesystem when the machine has one with room: every test file's
 * database is a copy of a prepared one (then 43 MB), and on ext4 copying and deleting it cost about 0.9 s
 * of kernel time a file (50 ms on tmpfs): npm test 134 -> 107 s. A TMPDIR of the user's own is kept.
 */
function memoryTmpdir(): string | undefined {
  const TMPFS_MAGIC = 0x01021994;
  try {
    const fs = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= 2 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
const memory = process.env.TMPDIR ? undefined : memoryTmpdir();
if (memory) process.env.TMPDIR = memory;

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
