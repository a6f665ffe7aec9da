import os from 'node:os';
import { Piscina } from 'piscina';
import { ApiError } from '../errors/api-error.ts';
import { boundCertificateView, boundReportView } from './limits.ts';
import type { Rendered, RenderTask } from './render.ts';
import type { CertificateView, ReportView } from './views.ts';

export type { CertificateView, ReportView } from './views.ts';

/**
 * PDF documents, drawn off the event loop: a small pool of worker threads (piscina) renders them,
 * so a report with charts never holds up other requests. One thread below 4 cores, two from 4.
 */
export const RENDER_THREADS = Math.max(1, Math.min(2, Math.floor(os.availableParallelism() / 2)));
/** Renders waiting for a thread; beyond, callers get 503 DOCUMENT_RENDERER_BUSY and retry. */
export const MAX_WAITING_RENDERS = 20;
/** A render taking longer is abandoned (its thread is replaced): no document needs this long. */
export const RENDER_TIMEOUT_MS = 60_000;

let pool: Piscina<RenderTask, Rendered> | undefined;

function renderer(): Piscina<RenderTask, Rendered> {
  pool ??= new Piscina({
    // Compiled (dist/), the thread runs render.js itself; from the TypeScript sources it needs worker.mjs to load them.
    filename: new URL(import.meta.url.endsWith('.ts') ? './worker.mjs' : './render.js', import.meta.url).href,
    name: 'render',
    minThreads: 1,
    maxThreads: RENDER_THREADS,
    // A warm thread keeps its parsed fonts and loaded chart libraries, slow to load again.
    idleTimeout: 10 * 60_000,
  });
  return pool;
}

/** A PDF route's 503, as /v1/openapi.json describes it. */
export const RENDERER_BUSY = 'Too many documents are waiting to be drawn (DOCUMENT_RENDERER_BUSY); retry after Retry-After seconds';

/** Renders in a worker thread; `threadId` says which (for tests). */
export async function renderInWorker(task: RenderTask): Promise<Rendered> {
  const threads = renderer();
  if (threads.queueSize >= MAX_WAITING_RENDERS) {
    throw new ApiError(
      503,
      'DOCUMENT_RENDERER_BUSY',
      'Document renderer busy',
      `${threads.queueSize} documents are waiting to be drawn; try again shortly`,
      {
        'Retry-After': '5',
      },
    );
  }
  return threads.run(task, { signal: AbortSignal.timeout(RENDER_TIMEOUT_MS) });
}

const toBuffer = ({ pdf }: Rendered) => Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);

export async function renderCertificatePdf(view: CertificateView): Promise<Buffer> {
  return toBuffer(await renderInWorker({ kind: 'certificate', view: boundCertificateView(view) }));
}

export async function renderReportPdf(view: ReportView): Promise<Buffer> {
  return toBuffer(await renderInWorker({ kind: 'report', view: boundReportView(view) }));
}

/** Lets running renders finish, then ends the worker threads (called by stopServices). */
export async function closeDocumentRenderer(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}
