import { threadId } from 'node:worker_threads';
import { certificatePdf } from './certificate.ts';
import { reportPdf } from './report.ts';
import type { CertificateView, ReportView } from './views.ts';

export type RenderTask = { kind: 'certificate'; view: CertificateView } | { kind: 'report'; view: ReportView };

export interface Rendered {
  pdf: Uint8Array;
  /** The worker thread that drew it: tests check that it is not the caller's. */
  threadId: number;
}

/** Runs in a render worker thread (see worker.mjs): CPU-heavy layout, charts and font subsetting. */
export async function render(task: RenderTask): Promise<Rendered> {
  const pdf = task.kind === 'certificate' ? await certificatePdf(task.view) : await reportPdf(task.view);
  return { pdf, threadId };
}
