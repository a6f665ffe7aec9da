// `npm start` (scripts/start.sh) picks the node flags of the database it is configured for
// (docs/operations.md, "At scale"): run with a stand-in `node` on PATH that prints what it was given.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startCommandOf } from '../support/process.ts';

const bin = mkdtempSync(path.join(tmpdir(), 'lcf-start-'));
writeFileSync(path.join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
chmodSync(path.join(bin, 'node'), 0o755);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** The arguments start.sh gives node, with `env` over an environment without DATABASE_URL and LCF_*. */
function nodeArgs(env: Record<string, string>): string[] {
  const { DATABASE_URL: _url, LCF_NODE_ARGS: _args, LCF_ENTRY: _entry, ...rest } = process.env;
  const out = execFileSync('sh', ['scripts/start.sh', 'extra'], {
    cwd: ROOT,
    env: { ...rest, PATH: `${bin}:${process.env.PATH}`, ...env },
  });
  return out.toString().trim().split('\n');
}

describe('npm start', () => {
  it('runs the embedded default with a 2 MB young generation and a 512 MB heap, its arguments after the build', () => {
    expect(nodeArgs({})).toEqual([
      '--v8-pool-size=0',
      '--max-semi-space-size=2',
      '--max-old-space-size=512',
      '--expose-gc',
      'dist/main.js',
      'extra',
    ]);
    // An empty DATABASE_URL is unset, as the configuration reads it.
    expect(nodeArgs({ DATABASE_URL: '' })).toContain('--max-semi-space-size=2');
  });

  it('runs PostgreSQL with an 8 MB young generation and a 1 024 MB heap', () => {
    expect(nodeArgs({ DATABASE_URL: 'postgresql://127.0.0.1:5432/test' })).toEqual([
      '--v8-pool-size=0',
      '--max-semi-space-size=8',
      '--max-old-space-size=1024',
      '--expose-gc',
      'dist/main.js',
      'extra',
    ]);
  });

  it('adds LCF_NODE_ARGS after its own flags and runs LCF_ENTRY instead of the build', () => {
    const args = nodeArgs({ LCF_NODE_ARGS: '--max-semi-space-size=4 --import tsx', LCF_ENTRY: 'src/main.ts' });
    expect(args.slice(4)).toEqual(['--max-semi-space-size=4', '--import', 'tsx', 'src/main.ts', 'extra']);
  });

  it('is what the tests and benchmarks start the build with', () => {
    const start = startCommandOf(ROOT, { nodeArgs: ['--cpu-prof'] });
    expect([start.command, ...start.args]).toEqual(['sh', 'scripts/start.sh']);
    expect(start.env.LCF_NODE_ARGS).toBe('--cpu-prof');
    expect(start.env.PATH!.split(path.delimiter)[0]).toBe(path.dirname(process.execPath));
  });
});
