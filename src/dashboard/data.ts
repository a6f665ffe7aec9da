import type { PrismaClient } from '../db/database.ts';
import type { KeyCaller } from '../auth/caller.ts';
import type { ReportView } from '../documents/views.ts';
import type { Services } from '../services.ts';
import { organizationOverview, type OrganizationOverview } from '../organizations/overview.ts';
import { assembleReportView } from '../reports/view.ts';
import { reportRequest } from '../reports/request.ts';
import { listExportJobs, visibleStatus } from '../exports/jobs.ts';
import { listDeliveries } from '../webhooks/endpoints.ts';

/** Rows of each activity list: the most recent ones; the API lists the rest. */
export const RECENT_ROWS = 10;

export interface DashboardData {
  organization: { name: string; plan: string };
  /** As GraphQL Organization { asset_count total_kg_co2e }. */
  overview: OrganizationOverview;
  /** The hotspot analysis of the last year, as POST /v1/report computes it: uncertainty, monthly trend, top lists, confidence mix. */
  report: ReportView;
  /** Per key not revoked (live and test), as the key page shows it. */
  quota: { prefix: string; name: string | null; used: number; limit: number }[];
  certificates: { id: string; certificate_number: string; issued_at: Date; revoked_at: Date | null; asset_id: string | null }[];
  certificateCount: number;
  exports: { id: string; status: string; created_at: Date; bytes: bigint | null; error_message: string | null }[];
  erasureRuns: {
    id: string;
    status: string;
    started_at: Date;
    synced: number;
    skipped: number;
    errors: number;
    error_code: string | null;
    error_message: string | null;
  }[];
  deliveries: {
    id: string;
    event: string;
    attempt: number;
    status: string;
    response_status: number | null;
    error: string | null;
    created_at: Date;
  }[];
  deliveryCount: number;
}

/**
 * Everything the dashboard shows, read through `prisma`, the caller's scoped client
 * (services.scopes.forCaller), with the functions the API answers from, so the figures are the API's.
 */
export async function dashboardData(services: Services, prisma: PrismaClient, caller: KeyCaller, now = new Date()): Promise<DashboardData> {
  const [organization, overview, report, keys, certificates, certificateCount, exports, erasureRuns, deliveries] = await Promise.all([
    prisma.organization.findFirstOrThrow({ select: { name: true, plan: true } }),
    organizationOverview(prisma),
    assembleReportView(
      { prisma, orgId: caller.orgId, reference: services.reference, sandbox: false },
      reportRequest({ type: 'hotspot_analysis' }, now),
      now,
    ),
    prisma.apiKey.findMany({ where: { revoked_at: null }, orderBy: { created_at: 'asc' } }),
    prisma.certificate.findMany({ orderBy: [{ issued_at: 'desc' }, { id: 'desc' }], take: RECENT_ROWS }),
    prisma.certificate.count(),
    listExportJobs(prisma, { limit: RECENT_ROWS, offset: 0 }, now),
    // As GET /v1/blancco/sync/runs orders them.
    prisma.erasureSyncRun.findMany({ orderBy: [{ started_at: 'desc' }, { id: 'desc' }], take: RECENT_ROWS }),
    listDeliveries(prisma, { limit: RECENT_ROWS }),
  ]);
  const usage = await services.quota.usageToday(
    keys.map((k) => ({ keyId: k.id, orgId: caller.keyOrgId, plan: k.plan })),
    now,
  );
  return {
    organization,
    overview,
    report,
    quota: keys.map((k, i) => ({ prefix: k.prefix, name: k.name, ...usage[i]! })),
    certificates,
    certificateCount,
    exports: exports.jobs.map((job) => ({ ...job, status: visibleStatus(job, now) })),
    erasureRuns,
    deliveries: deliveries.deliveries,
    deliveryCount: deliveries.total,
  };
}
