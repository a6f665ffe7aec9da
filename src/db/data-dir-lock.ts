import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** The embedded database's data directory is held by another live process (a running server, most often). */
export class DataDirectoryBusyError extends Error {
  override readonly name = 'DataDirectoryBusyError';

  constructor(dataDir: string, holder: number) {
    super(
      `the embedded database in ${dataDir} is in use by process ${holder} (a server started with the same DATA_DIR holds it): ` +
        'stop that process and run this again, or give this one a DATA_DIR of its own (or DATABASE_URL)',
    );
  }
}

/** Also for the error as it crosses from the database's thread, which keeps its name but not its class. */
export const isDataDirectoryBusy = (error: unknown): error is Error => error instanceof Error && error.name === 'DataDirectoryBusyError';

/** The data directories this process holds, given back when it exits (one listener for all). */
const held = new Set<string>();
let releaseAtExit = false;

/** Beside the data directory, not in it: PGlite owns what is inside. */
const lockFile = (dataDir: string) => `${dataDir.replace(/\/+$/, '')}.lock`;

const holderOf = (file: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the embedded database's data directory for this process, or throws DataDirectoryBusyError while
 * another live process holds it: two PostgreSQL instances over one data directory would corrupt it, and
 * PGlite does not refuse the second. The lock is a file beside the directory naming the process; one left
 * by a process that ended without releasing it (a crash) is taken over. This process may take it again.
 * The parent directory must exist.
 */
export function lockDataDirectory(dataDir: string): void {
  const file = lockFile(dataDir);
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(dataDir);
      if (!releaseAtExit) process.once('exit', () => held.forEach(releaseDataDirectory));
      releaseAtExit = true;
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    if (holder === process.pid) return;
    if (holder !== undefined && isAlive(holder)) throw new DataDirectoryBusyError(dataDir, holder);
    // Left behind by a process that has ended (or being written this instant: the next attempt reads it).
    rmSync(file, { force: true });
  }
}

/** Gives the data directory back, if this process holds it. */
export function releaseDataDirectory(dataDir: string): void {
  held.delete(dataDir);
  const file = lockFile(dataDir);
  if (holderOf(file) === process.pid) rmSync(file, { force: true });
}
