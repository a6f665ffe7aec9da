import { parentPort, workerData } from 'node:worker_threads';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { startPGlite } from './database.ts';
import { releaseDataDirectory } from './data-dir-lock.ts';
import { releasingParsedResults, withExtendedQueryErrors } from './pglite-protocol.ts';

/**
 * The embedded database's thread (src/db/database.ts, openPGlite): PGlite runs here, never on the thread
 * that answers requests, and serves the PostgreSQL protocol on a unix socket, so the server reaches it
 * with the same driver and Prisma adapter as PostgreSQL.
 */
export interface PGliteWorkerData {
  dataDir?: string;
  seed?: string;
  socketPath: string;
  wasmModule: WebAssembly.Module;
}

const { dataDir, seed, socketPath, wasmModule } = workerData as PGliteWorkerData;
const port = parentPort!;
const pglite = await startPGlite(dataDir, seed, wasmModule);
// PGlite is one session, and the server's pool has one connection. Two are accepted so that a connection
// the pool replaces (pg drops one whose statement failed or timed out) is not refused while the socket
// server still counts the old one; they never work at once, so no statement of one runs inside the
// other's unnamed statement or transaction.
const server = new PGLiteSocketServer({
  db: withExtendedQueryErrors(releasingParsedResults(pglite)),
  path: socketPath,
  maxConnections: 2,
});
await server.start();
// 'close': the server stops taking statements and PGlite shuts down cleanly (a checkpoint of its data directory).
port.once('message', async () => {
  await server.stop();
  await pglite.close();
  if (dataDir) releaseDataDirectory(dataDir);
  port.postMessage('closed');
  port.close();
});
port.postMessage('ready');
