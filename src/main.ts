import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { createLogger } from './observability/logger.ts';
import { openConfiguredDatabase } from './db/prepare.ts';
import { logProcessWarnings, onStopRequest } from './cli/process-signals.ts';
import { isDataDirectoryBusy } from './db/data-dir-lock.ts';

const startedAt = performance.now();
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`lcf: ${error.message}`);
  process.exit(1);
}

const log = createLogger(config.logLevel);
logProcessWarnings(log);
// The database opens (PGlite compiles its WebAssembly off the main thread) while the service's modules load.
const database = openConfiguredDatabase(config);
// Its failure is answered below, once the modules have loaded; meanwhile it is not an unhandled rejection.
database.catch(() => {});
const [{ startServices, stopServices }, { startBackgroundWork }, { createApp }, { answerClientErrors }] = await Promise.all([
  import('./startup.ts'),
  import('./background.ts'),
  import('./app.ts'),
  import('./plugins/request-limits.ts'),
]);
const services = await database
  .then((db) => startServices(config, log, db))
  .catch((error: unknown) => {
    // A key that does not open with this instance's configuration, or a data directory another server holds: said in one line, like a bad variable.
    if (!(error instanceof ConfigError) && !isDataDirectoryBusy(error)) throw error;
    console.error(`lcf: ${error.message}`);
    process.exit(1);
  });
if (!config.secretsKey && config.databaseUrl) {
  log.warn(
    'SECRETS_KEY is not set: the secrets key sealing the certificate signing key and stored third-party keys is kept in the database, so a copy of the database opens them; set SECRETS_KEY on every instance',
  );
}
if (!config.publicBaseUrl) {
  log.warn(
    {
      allowed_hosts: config.allowedHosts.map((h) => (h.port ? `${h.hostname}:${h.port}` : h.hostname)),
      other_hosts_link_to: config.listenOrigin,
    },
    "PUBLIC_BASE_URL is not set: links (verify_url and QR codes, downloads) name the request's host if allowed, else the listen address; set PUBLIC_BASE_URL to the address clients use",
  );
}
const app = createApp(services);
const server = createServer(app.handle);
server.keepAliveTimeout = 65_000;
answerClientErrors(server);

const BACKGROUND_START_DELAY_MS = 1_000;
let backgroundStart: NodeJS.Timeout | undefined;
server.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  log.info(
    {
      // The socket actually bound (PORT=0 picks a free port), and the address links to this service name.
      address: `${address.includes(':') ? `[${address}]` : address}:${port}`,
      url: `${config.publicBaseUrl?.replace(/\/+$/, '') ?? config.listenOrigin.replace(/:\d+$/, `:${port}`)}/v1`,
      database: services.db.kind,
      startup_ms: Math.round(performance.now() - startedAt),
    },
    'listening',
  );
  // A new server: where its admin token is and the one command that makes a first key (docs/api.md, "Organisations and API keys").
  if (!config.adminToken) announceFirstKey().catch(() => {});
  // Housekeeping starts a second after the server listens: its first statements (export leases, webhook
  // retries) touch tables no request has read yet, work that would stand before the first answer of a restart.
  // With EXPORT_WORKER=off exports are left to separate `lcf worker` processes (PostgreSQL only).
  backgroundStart = setTimeout(() => {
    startBackgroundWork(services, {
      exportWorker: config.exports.worker === 'inline',
      webhookDispatcher: config.webhooks.dispatch === 'inline',
    });
    // The catalogue's search index and readings of names are built then too, rather than inside the first
    // search, footprint by name or import batch, which held every other request up meanwhile.
    services.catalogue.warm().catch((error) => log.error({ err: error }, 'could not prepare the catalogue'));
  }, BACKGROUND_START_DELAY_MS);
});

async function announceFirstKey() {
  const [{ adminTokenFile }, keys] = await Promise.all([import('./admin/admin-token.ts'), services.db.prisma.apiKey.count()]);
  if (keys > 0) return;
  log.info(
    { admin_token_file: adminTokenFile({ DATA_DIR: config.dataDir }), first_key: 'npx lcf quickstart' },
    'no API key yet: `npx lcf quickstart` creates an organisation and a key, and prints a first call',
  );
}

let stopping = false;
async function shutdown(reason: string) {
  if (stopping) return;
  stopping = true;
  clearTimeout(backgroundStart);
  app.drain();
  log.info({ reason }, 'shutting down: finishing in-flight requests');
  const deadline = performance.now() + config.shutdownTimeoutMs;
  const untilDeadline = () => Math.max(0, deadline - performance.now());
  // Stops accepting connections; the callback runs once they have all closed. The database closes once
  // the requests have finished too: a request whose client went away runs on without a connection.
  server.close(async () => {
    await app.settled(untilDeadline());
    await stopServices(services);
    log.info('stopped');
    process.exit(0);
  });
  server.closeIdleConnections();
  // Once no request is in flight, what is still open serves nobody: a connection a client opened and
  // never used (Node's idle-connection check passes over it), or one whose response was abandoned.
  void app.settled(untilDeadline()).then((settled) => {
    if (!settled) log.warn('shutdown timeout reached: closing remaining connections');
    server.closeAllConnections();
  });
}
onStopRequest((reason) => void shutdown(reason));
