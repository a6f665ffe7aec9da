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
/** How long a render thread may sit idle before it stops (RENDER_IDLE_SECONDS; configureDocumentRenderer). */
let idleMs = 60_000;

/** Sets how long an idle render thread lives; threads started from now on keep it (called once at start). */
export function configureDocumentRenderer(options: { idleMs: number }): void {
  idleMs = options.idleMs;
}

function renderer(): Piscina<RenderTask, Rendered> {
  pool ??= new Piscina({
    // Compiled (dist/), the thread runs render.js itself; from the TypeScript sources it needs worker.mjs to load them.
    filename: new URL(import.meta.url.endsWith('.ts') ? './worker.mjs' : './render.js', import.meta.url).href,
    name: 'render',
    // No thread until the first document, none after a quiet minute: a warm thread holds about 100 MB
    // (parsed fonts, chart libraries), which a burst of documents reuses but an idle server should not keep.
    minThreads: 0,
    maxThreads: RENDER_THREADS,
    idleTimeout: idleMs,
  });
  return pool;
}

/** A PDF route's 503, as /v1/openapi.json describes it. */
export const RENDERER_BUSY = 'Too many documents are waiting to be drawn (DOCUMENT_RENDERER_BUSY); retry after Retry-After seconds';

/** Render threads running now (0 before the first document and after a quiet idle time). */
export const renderThreadCount = () => pool?.threads.length ?? 0;

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
