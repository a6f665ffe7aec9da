// `prisma generate` without network: Prisma's CLI otherwise tries to download its native schema
// engine, which generation does not need; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing
// file skips the download. Runs after `npm install`.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath };
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate'], { stdio: 'inherit', env, shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
