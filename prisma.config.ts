import { defineConfig } from '@prisma/config';

// Used by the Prisma CLI only (generate, and migrate deploy where Prisma's engine is available).
// The service itself applies prisma/migrations with its own runner (src/db/migrate.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/lcf' },
});
