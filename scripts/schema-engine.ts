// Drives Prisma's schema engine (the WebAssembly build) offline: the native engine cannot be
// downloaded here, and `prisma migrate diff` needs one. This is an internal Prisma interface,
// kept to this one file: `diff` writes new migrations and proves the folder matches the schema.
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { startPGlite } from '../src/db/database.ts';

const require = createRequire(import.meta.url);
export const schemaPath = path.resolve('prisma/schema.prisma');
export const migrationsDir = path.resolve('prisma/migrations');

type DiffTarget = Record<string, unknown> & { tag: string };
interface SchemaEngine {
  diff(params: object): Promise<{ exitCode: number; stdout: string | null }>;
}

/** Opens one of the engine's two databases: its own connection, and the shadow database the migrations are replayed in. */
export type OpenPGlite = () => Promise<PGlite>;

async function loadEngine(openPGlite: OpenPGlite): Promise<SchemaEngine> {
  const dir = path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const bytes = await readFile(path.join(dir, 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bindings });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  const schema = await readFile(schemaPath, 'utf8');
  const factory = new PrismaPGlite(await openPGlite());
  // The adapter's own shadow database is a PGlite that compiles its WebAssembly again (seconds of CPU).
  factory.connectToShadowDb = async () => new PrismaPGlite(await openPGlite()).connect();
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  return bindings.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => {}, adapter);
}

export async function migrationsTarget(): Promise<DiffTarget> {
  const names = (await readdir(migrationsDir, { withFileTypes: true }).catch(() => []))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  );
  return {
    tag: 'migrations',
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: 'provider = "postgresql"\n' },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

/**
 * SQL that takes the migrations folder to schema.prisma; empty when they agree. Its databases are new
 * in-memory ones unless `openPGlite` says otherwise (the tests copy an initialised data directory
 * instead of running initdb twice); they are closed again.
 */
export async function diffMigrationsToSchema(openPGlite: OpenPGlite = () => startPGlite(undefined)): Promise<string> {
  const opened: PGlite[] = [];
  const engine = await loadEngine(async () => {
    const pglite = await openPGlite();
    opened.push(pglite);
    return pglite;
  });
  try {
    const schema = await readFile(schemaPath, 'utf8');
    const result = await engine.diff({
      from: await migrationsTarget(),
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    await Promise.all(opened.map((pglite) => pglite.close()));
  }
}
