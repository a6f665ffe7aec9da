// `npm run sdk:generate`: serves the app in-process on a throw-away embedded database, GETs
// /v1/openapi.json and writes it to sdk/openapi.json, then sdk/src/openapi.ts generated from it by
// openapi-typescript (both checked in; test/sdk/generated.test.ts fails when they are stale).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { OPENAPI_PATH } from '../src/kernel/paths.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startServices, stopServices } from '../src/startup.ts';
import { SDK_OPENAPI_JSON, SDK_OPENAPI_TYPES, openApiJson, openApiTypes } from './sdk-openapi.ts';

const dataDir = await mkdtemp(path.join(tmpdir(), 'lcf-sdk-generate-'));
try {
  // Only what the document needs: none of the caller's environment (a DATABASE_URL, a PUBLIC_BASE_URL) changes it.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const services = await startServices(config, createLogger(config.logLevel));
  try {
    const response = await createApp(services).fetch(new Request(`http://localhost${OPENAPI_PATH}`));
    if (response.status !== 200) throw new Error(`GET ${OPENAPI_PATH}: ${response.status} ${await response.text()}`);
    const document = (await response.json()) as object;
    await writeFile(SDK_OPENAPI_JSON, openApiJson(document));
    await writeFile(SDK_OPENAPI_TYPES, await openApiTypes(document));
    console.log('wrote sdk/openapi.json and sdk/src/openapi.ts');
  } finally {
    await stopServices(services);
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
