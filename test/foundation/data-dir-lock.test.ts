import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirectoryBusyError, lockDataDirectory, releaseDataDirectory } from '../../src/db/data-dir-lock.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lcf-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the embedded database data directory lock', () => {
  it('is taken by a file beside the directory naming this process, again by this process, and given back', () => {
    const dataDir = path.join(dir, 'a');
    lockDataDirectory(dataDir);
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockDataDirectory(dataDir)).not.toThrow();
    releaseDataDirectory(dataDir);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  });

  it('refuses while another live process holds it, and takes over one left by a process that has ended', async () => {
    const dataDir = path.join(dir, 'b');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      writeFileSync(`${dataDir}.lock`, `${other.pid}\n`);
      expect(() => lockDataDirectory(dataDir)).toThrow(DataDirectoryBusyError);
      expect(() => lockDataDirectory(dataDir)).toThrow(`is in use by process ${other.pid}`);
    } finally {
      other.kill();
      await new Promise((resolve) => other.once('exit', resolve));
    }
    lockDataDirectory(dataDir); // the holder has ended: its lock is stale
    expect(readFileSync(`${dataDir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    releaseDataDirectory(dataDir);
  });
});
