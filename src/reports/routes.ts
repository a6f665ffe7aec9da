import { createHash, randomUUID } from 'node:crypto';
import { RateLimitError } from '../errors/api-error.ts';
import { keyCaller, type Access } from '../auth/access.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { readJsonBody } from '../rest/json-body.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { Router } from '../rest/router.ts';
import { RENDERER_BUSY, renderReportPdf } from '../documents/index.ts';
import type { OpenApiOperation } from '../kernel/openapi-types.ts';
import type { Services } from '../services.ts';
import { openApiSchema } from '../validation/schemas.ts';
import { EARLIEST_DATE, LATEST_DATE, reportBody, reportRequest } from './request.ts';
import { REPORT_PATH } from './paths.ts';
import { assembleReportView } from './view.ts';

export { REPORT_PATH };
export const REPORT_AUDIT_EVENT = 'report.created';

/** POST /v1/report answers a PDF; SOFA answers JSON only, so the route is hand-written (mounted after access control). */
export function createReportRouter(services: Services): Router {
  return new Router(REPORT_PATH).on('POST', '/', REPORT_ACCESS, (request) => createReport(services, request), {
    openApi: REPORT_OPENAPI,
    idempotent: true,
  });
}

/** Pro plan or higher; a report is recorded, so the shared demo sandbox of test keys without organisation context cannot make one. */
const REPORT_ACCESS: Access = { organisation: true, plan: 'report', records: 'Reports need an API key with organisation context' };

/** The monthly report allowance, on every report and on its 429 (X-RateLimit-* stay the request quota's). */
const REPORT_ALLOWANCE_HEADERS = {
  'X-Report-Limit': { description: "Reports a month of the organisation's plan", schema: { type: 'integer' } },
  'X-Report-Remaining': { description: 'Reports left this UTC month', schema: { type: 'integer' } },
  'X-Report-Reset': { description: 'Unix time the allowance resets (the start of the next UTC month)', schema: { type: 'integer' } },
};

/** pdfkit writes one `/Type /Page` dictionary per page (and `/Type /Pages` for the tree). */
const pageCount = (pdf: Buffer) => pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;

async function createReport(services: Services, request: Request): Promise<Response> {
  const caller = keyCaller(currentCaller());
  const report = reportRequest(await readJsonBody(request, reportBody, { optional: true }));

  // The allowance is the key's organisation's, like the request quota (test keys included).
  const allowance = await services.quota.reserveReport(caller.keyOrgId, caller.plan);
  const allowanceHeaders = {
    'X-Report-Limit': String(allowance.limit),
    'X-Report-Remaining': String(allowance.remaining),
    'X-Report-Reset': String(allowance.reset),
  };
  if (!allowance.allowed) {
    services.metrics.quotaRefused(caller.plan, 'monthly_reports');
    // The month's window is told by X-Report-*; X-RateLimit-* stay the request quota's, which gives this request back.
    throw new RateLimitError(
      'REPORT_LIMIT_REACHED',
      `The monthly limit of ${allowance.limit} reports of the ${caller.plan} plan is used up; it resets at the start of the next UTC month, in ${allowance.retryAfterSeconds} s.`,
      allowance.retryAfterSeconds ?? 1,
      undefined,
      allowanceHeaders,
    );
  }

  try {
    const prisma = services.scopes.forCaller(caller);
    const view = await assembleReportView(
      { prisma, orgId: caller.orgId, reference: services.reference, sandbox: caller.environment === 'test' },
      report,
    );
    const pdf = await renderReportPdf(view);
    const id = randomUUID();
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const pages = pageCount(pdf);
    const day = (d: string) => new Date(`${d}T00:00:00Z`);
    await prisma.$transaction([
      prisma.report.create({
        data: {
          id,
          org_id: caller.orgId,
          api_key_id: caller.keyId,
          type: report.type,
          date_from: day(report.dateFrom),
          date_to: day(report.dateTo),
          pages,
          bytes: pdf.length,
          sha256,
        },
      }),
      prisma.auditLog.create({
        data: auditEntry(
          caller,
          REPORT_AUDIT_EVENT,
          { type: 'report', id },
          {
            type: report.type,
            date_from: report.dateFrom,
            date_to: report.dateTo,
            asset_count: view.asset_count,
            pages,
            bytes: pdf.length,
            sha256,
          },
        ),
      }),
    ]);
    const filename = `${report.type.replaceAll('_', '-')}_${report.dateFrom}_${report.dateTo}.pdf`;
    return new Response(new Uint8Array(pdf), {
      headers: {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${filename}"`,
        'Content-Length': String(pdf.length),
        'Cache-Control': 'no-store',
        'X-Report-Id': id,
        ...allowanceHeaders,
      },
    });
  } catch (error) {
    // A report that was not delivered does not use the allowance.
    await allowance.release();
    throw error;
  }
}

/** The route in /v1/openapi.json (SOFA documents only its own routes). */
export const REPORT_OPENAPI: OpenApiOperation = {
  operationId: 'report',
  summary: 'Sustainability summary or hotspot analysis of the organisation, as a PDF',
  description:
    'Pro plan or higher (free: 403 PLAN_TOO_LOW); a key with organisation context (403 NO_ORGANIZATION_CONTEXT). ' +
    `Dates are UTC days, both included, from ${EARLIEST_DATE} to ${LATEST_DATE}: dateTo defaults to today, dateFrom to one year before dateTo; ` +
    'any length; a period wholly in the future is refused. ' +
    'criterion (hotspot analysis): gwp (default), adpe or pe ranks the hotspots by that criterion, summed from the stored impacts of the calculations. A refused request (400, 403, 429) counts against neither the monthly report limit nor the daily quota. ' +
    'Monthly report limit per plan (429 when reached; X-Report-Limit, X-Report-Remaining, X-Report-Reset). Period semantics: docs/reports.md.',
  tags: ['Reports'],
  requestBody: {
    required: true,
    content: { 'application/json': { schema: openApiSchema(reportBody) } },
  },
  responses: {
    200: {
      description: 'The report',
      headers: {
        'X-Report-Id': { description: 'Id of the report record (audit event report.created)', schema: { type: 'string', format: 'uuid' } },
        ...REPORT_ALLOWANCE_HEADERS,
      },
      content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
    },
    400: { description: 'Invalid parameter (named in details)' },
    401: { description: 'Missing, invalid or revoked API key' },
    403: { description: 'Plan too low, or no organisation context' },
    429: { description: 'Monthly report limit (REPORT_LIMIT_REACHED) or the request quota reached', headers: REPORT_ALLOWANCE_HEADERS },
    503: { description: RENDERER_BUSY },
  },
};
