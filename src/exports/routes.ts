import { keyCaller } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { publicBase } from '../rest/public-url.ts';
import { wantsJson } from '../rest/accept.ts';
import { REST_BASE } from '../kernel/paths.ts';
import { Router } from '../rest/router.ts';
import type { Services } from '../services.ts';
import type { OpenApiOperation } from '../kernel/openapi-types.ts';
import { exportDownload } from './jobs.ts';

export const EXPORT_JOBS_PATH = `${REST_BASE}/org/export/jobs`;

/** The download answers a 302 or JSON by the Accept header, which SOFA cannot express; mounted after access control for the caller. */
export function createExportDownloadRouter(services: Services): Router {
  return new Router(EXPORT_JOBS_PATH, { 'Cache-Control': 'no-store' }).on(
    'GET',
    '/:id/download',
    { organisation: true },
    async (request, { id }) => {
      const caller = keyCaller(currentCaller());
      const download = await exportDownload(
        { prisma: services.scopes.forCaller(caller), caller, storage: services.exportStorage, base: publicBase(request, services.config) },
        id!,
      );
      if (wantsJson(request)) return Response.json({ ...download, expires_at: download.expires_at.toISOString() });
      return new Response(null, { status: 302, headers: { Location: download.signed_url } });
    },
    { openApi: DOWNLOAD_OPENAPI },
  );
}

/** The download in /v1/openapi.json (SOFA documents only its own routes). */
const DOWNLOAD_OPENAPI: OpenApiOperation = {
  operationId: 'exportJobDownload',
  summary: 'Download a completed export: a signed URL valid 15 minutes',
  description:
    "Checks that the job is your organisation's (404 otherwise) and writes the audit event org.export.job.downloaded. " +
    'With Accept: application/json: {signed_url, expires_at, bytes, sha256}; otherwise 302 to the signed URL. ' +
    '409 EXPORT_NOT_COMPLETED before completion, EXPORT_FAILED or EXPORT_CANCELLED for a job that will never complete; 410 EXPORT_EXPIRED 72 hours after completion.',
  tags: ['Organisation export'],
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid', maxLength: 64 } },
    {
      name: 'Accept',
      in: 'header',
      required: true,
      description:
        'application/json: the link as JSON (200), what a generated client wants; any other (a browser, curl) is redirected (302) to the archive',
      schema: { type: 'string', enum: ['application/json'], default: 'application/json' },
    },
  ],
  responses: {
    200: {
      description: 'Signed URL (Accept: application/json)',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['signed_url', 'expires_at', 'bytes', 'sha256'],
            properties: {
              signed_url: { type: 'string', format: 'uri' },
              expires_at: { type: 'string', format: 'date-time' },
              bytes: { type: 'integer', format: 'int64' },
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            },
          },
        },
      },
    },
    302: {
      description: 'Without Accept: application/json: a redirect to the signed URL',
      headers: { Location: { description: 'The signed URL of the archive', required: true, schema: { type: 'string', format: 'uri' } } },
    },
    400: { description: 'id is not a UUID' },
    401: { description: 'Missing, invalid or revoked API key' },
    404: { description: 'No such export job in your organisation' },
    409: {
      description:
        'The job is not completed (EXPORT_NOT_COMPLETED), or failed or was cancelled and never will be (EXPORT_FAILED, EXPORT_CANCELLED)',
    },
    410: { description: 'The archive expired (72 hours after completion)' },
  },
};
