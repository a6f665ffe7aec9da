/**
 * POST /v1/blancco/sync (spec 2.9, 4.4; docs/erasure-sync.md): a bounded batch of erasure reports
 * fetched from the organisation's Blancco portal, each wiped device turned into an asset with a
 * footprint. Reports are processed page by page; each page is one transaction that records its
 * reports (unique per organisation + report uuid) together with the assets they produced, so an
 * interrupted sync loses nothing and a re-run completes the rest. One sync runs at a time per
 * organisation (a lease on the run row, held by a partial unique index).
 */
import type { Prisma } from '../db/database.ts';
import { advisoryLockKey, isUniqueViolation } from '../db/database.ts';
import { ApiError, RateLimitError, invalidParameter } from '../errors/api-error.ts';
import { checkUuid } from '../validation/text.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { enqueueWebhookEvent } from '../webhooks/events.ts';
import { prepareImport, writeImport, type PreparedImport } from '../assets/import.ts';
import type { AssetRowInput } from '../assets/import-rows.ts';
import type { AssetStatus } from '../assets/status.ts';
import { BlanccoClient, PORTAL_DEFAULT_PAGE, PORTAL_SIZE_MAX } from './blancco-client.ts';
import { parseReport, reportsOfPage, BlanccoPageError, type ParsedReport } from './blancco-report.ts';
import { checkCountry, openConnection, type ErasureContext } from './connection.ts';

/** Reports one request handles at most, so that no request is held open for minutes (docs/erasure-sync.md, Batches). */
export const SYNC_LIMIT_MAX = 1000;
/** How long a run's claim holds without renewal (renewed with every page): a crashed run frees its organisation after this. */
export const SYNC_LEASE_SECONDS = 120;
/** Statuses a sync leaves alone: the device has left the organisation's hands. */
const FINAL_STATUSES: ReadonlySet<string> = new Set(['resold', 'recycled', 'disposed', 'refurbished']);
/** Wiped devices are held by the organisation, ready for their next life. */
const ERASED_STATUS: AssetStatus = 'in_stock';
const ERROR_TEXT_MAX = 500;

export interface SyncInput {
  onlySuccessful?: boolean | null;
  sinceDate?: string | null;
  country?: string | null;
  limit?: number | null;
  continuation?: string | null;
}

export interface SyncItem {
  uuid: string | null;
  status: 'synced' | 'skipped' | 'error';
  brand: string | null;
  model: string | null;
  serial_number: string | null;
  category: string | null;
  asset_id: string | null;
  calculation_id: string | null;
  total_kg_co2e: number | null;
  error: string | null;
}

export interface SyncResult {
  sync_run_id: string;
  synced: number;
  skipped: number;
  errors: number;
  details: SyncItem[];
  has_more: boolean;
  continuation: string | null;
}

interface SyncParams {
  onlySuccessful: boolean;
  sinceDate: string | null;
  /** The request's, else the connection's default (NL unless configured). */
  country: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const sinceOf = (params: SyncParams): Date | null => (params.sinceDate ? new Date(`${params.sinceDate}T00:00:00Z`) : null);

/**
 * The `size` to ask for when `wanted` more reports may be taken: the portal documents 1 to 10 for
 * `size`, and a page of at most 100 without it; no more than `wanted` reports are asked for.
 */
export const pageSize = (wanted: number): number | undefined =>
  wanted >= PORTAL_DEFAULT_PAGE ? undefined : Math.min(wanted, PORTAL_SIZE_MAX);

function checkSinceDate(value: string): string {
  const trimmed = value.trim();
  const time = DATE.test(trimmed) ? Date.parse(`${trimmed}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== trimmed)
    throw invalidParameter('sinceDate', `must be a date YYYY-MM-DD, got '${value}'`);
  if (time > Date.now()) throw invalidParameter('sinceDate', `must not be in the future, got '${value}'`);
  return trimmed;
}

function checkLimit(limit: number | null | undefined): number {
  if (limit == null) return SYNC_LIMIT_MAX;
  if (!Number.isInteger(limit) || limit < 1 || limit > SYNC_LIMIT_MAX)
    throw invalidParameter('limit', `must be an integer from 1 to ${SYNC_LIMIT_MAX}, got ${limit}`);
  return limit;
}

const syncInProgress = (retryAfterSeconds: number) =>
  new RateLimitError(
    'ERASURE_SYNC_IN_PROGRESS',
    'Another erasure sync of this organisation is running; only one runs at a time. Try again when it has finished (its reports are then skipped).',
    retryAfterSeconds,
    // Retry-After alone: X-RateLimit-* on this answer stay the request quota's.
    undefined,
  );

/** Filters and where to start: from the request, or from the run a continuation names. */
async function resolveStart(
  ctx: ErasureContext,
  input: SyncInput,
  defaultCountry: string,
): Promise<{ params: SyncParams; cursor: string | null; continuedFrom: string | null }> {
  const continuation = input.continuation?.trim();
  if (!continuation) {
    return {
      params: {
        onlySuccessful: input.onlySuccessful ?? false,
        sinceDate: input.sinceDate == null ? null : checkSinceDate(input.sinceDate),
        country: input.country == null ? defaultCountry : checkCountry(ctx.services, input.country, 'country'),
      },
      cursor: null,
      continuedFrom: null,
    };
  }
  checkUuid('continuation', continuation);
  for (const field of ['onlySuccessful', 'sinceDate', 'country'] as const) {
    if (input[field] != null)
      throw invalidParameter(field, 'must not be given with continuation: a continuation keeps the filters of the sync it continues');
  }
  // Another organisation's run answers exactly like an unknown one (the scoped client sees only the caller's).
  const previous = await ctx.prisma.erasureSyncRun.findUnique({ where: { id: continuation } });
  if (!previous?.has_more || !previous.cursor) {
    throw invalidParameter('continuation', 'is not the continuation of a sync of this organisation that has more reports');
  }
  return { params: previous.params as unknown as SyncParams, cursor: previous.cursor, continuedFrom: previous.id };
}

async function startRun(ctx: ErasureContext, params: SyncParams, continuedFrom: string | null) {
  const { prisma, caller } = ctx;
  try {
    return await prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${advisoryLockKey(`erasure-sync:${caller.orgId}`)}::bigint)`;
      const now = new Date();
      // A run whose lease ran out was cut off (its process died): its pages are committed, the rest is for a new run.
      await tx.erasureSyncRun.updateMany({
        where: { status: 'running', lease_expires_at: { lt: now } },
        data: {
          status: 'interrupted',
          finished_at: now,
          error_code: 'ERASURE_SYNC_INTERRUPTED',
          error_message: 'the sync stopped before it finished; the reports it committed stay synced',
        },
      });
      const live = await tx.erasureSyncRun.findFirst({ where: { status: 'running' }, select: { lease_expires_at: true } });
      if (live) throw syncInProgress(Math.max(1, Math.ceil(((live.lease_expires_at?.getTime() ?? now.getTime()) - now.getTime()) / 1000)));
      return tx.erasureSyncRun.create({
        data: {
          org_id: caller.orgId,
          params: params as unknown as Prisma.InputJsonValue,
          api_key_id: caller.keyId,
          continued_from: continuedFrom,
          lease_expires_at: new Date(now.getTime() + SYNC_LEASE_SECONDS * 1000),
        },
      });
    });
  } catch (error) {
    // Only a writer that bypassed the lock gets here: the partial unique index kept it to one run.
    if (isUniqueViolation(error)) throw syncInProgress(SYNC_LEASE_SECONDS);
    throw error;
  }
}

const item = (report: ParsedReport | null, status: SyncItem['status'], error: string | null = null): SyncItem => ({
  uuid: report?.uuid ?? null,
  status,
  brand: report?.device.brand ?? null,
  model: report?.device.model ?? null,
  serial_number: report?.device.serial_number ?? null,
  category: report?.device.category ?? null,
  asset_id: null,
  calculation_id: null,
  total_kg_co2e: null,
  error: error && clip(error),
});

const clip = (text: string) => (text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX - 1)}…` : text);

/** The footprint lookup chain's inputs from a parsed report. */
function assetRow(
  report: ParsedReport,
  params: SyncParams,
  existing: Map<string, { status: string; purchase_date: Date | null }>,
): AssetRowInput {
  const { device } = report;
  const before = existing.get(device.serial_number!);
  return {
    brand: device.brand,
    model: device.model,
    serial_number: device.serial_number,
    category: device.category,
    country: params.country,
    status: before && FINAL_STATUSES.has(before.status) ? before.status : ERASED_STATUS,
    purchase_date: before?.purchase_date?.toISOString().slice(0, 10) ?? null,
    ram_gb: device.specs.ram_gb,
    storage_gb: device.specs.storage_gb,
    storage_type: device.specs.storage_type,
    battery_wh: device.specs.battery_wh,
    screen_size_inch: device.specs.screen_size_inch,
    release_year: device.release_year,
  };
}

/** The erasure_reports row of an item (what is kept of the report: the parsed device, not the raw document). */
function reportRow(report: ParsedReport, status: SyncItem['status'], error: string | null) {
  return {
    uuid: report.uuid,
    status,
    brand: report.device.brand,
    model: report.device.model,
    serial_number: report.device.serial_number,
    category: report.device.category,
    erasure_state: report.erasure_state,
    erased_at: report.erased_at?.toISOString() ?? null,
    report: { device: report.device, erasure_state: report.erasure_state },
    error,
  };
}

// Records the page's reports. A report already recorded is taken over only when its earlier attempt
// failed (errors are retried); one synced by another run meanwhile is not returned, so it is skipped here.
const CLAIM = `
INSERT INTO erasure_reports AS e (id, org_id, sync_run_id, external_uuid, status, brand, model, serial_number, category, erasure_state, erased_at, report, error, created_at)
SELECT gen_random_uuid(), $2::uuid, $3::uuid, r.uuid, r.status::"ErasureItemStatus", r.brand, r.model, r.serial_number, r.category, r.erasure_state, r.erased_at, r.report, r.error, now()
FROM json_to_recordset($1::json) AS r(uuid text, status text, brand text, model text, serial_number text, category text, erasure_state text, erased_at timestamptz, report jsonb, error text)
ON CONFLICT (org_id, external_uuid) DO UPDATE SET sync_run_id = EXCLUDED.sync_run_id, status = EXCLUDED.status, brand = EXCLUDED.brand, model = EXCLUDED.model,
  serial_number = EXCLUDED.serial_number, category = EXCLUDED.category, erasure_state = EXCLUDED.erasure_state, erased_at = EXCLUDED.erased_at,
  report = EXCLUDED.report, error = EXCLUDED.error, created_at = now()
WHERE e.status = 'error'
RETURNING e.external_uuid AS uuid`;

const LINK = `
UPDATE erasure_reports e SET asset_id = l.asset_id, calculation_id = l.calculation_id
FROM json_to_recordset($1::json) AS l(uuid text, asset_id uuid, calculation_id uuid)
WHERE e.org_id = $2::uuid AND e.external_uuid = l.uuid`;

/** One page: parse, skip what is synced, calculate the rest, then record reports and assets in one transaction. */
async function processPage(ctx: ErasureContext, runId: string, params: SyncParams, rawReports: unknown[]): Promise<SyncItem[]> {
  const { prisma, caller, services } = ctx;
  const since = sinceOf(params);
  const parsed = rawReports.map((raw) => parseReport(raw));
  const items: SyncItem[] = [];
  const ours: { index: number; report: ParsedReport }[] = [];
  const seen = new Set<string>();
  const uuids = parsed.flatMap((p) => (p.ok ? [p.report.uuid] : []));
  const done = new Set(
    (
      await prisma.erasureReport.findMany({
        where: { external_uuid: { in: uuids }, status: { not: 'error' } },
        select: { external_uuid: true },
      })
    ).map((r) => r.external_uuid),
  );
  // Reports that do not parse but name their uuid: recorded as errors with the page.
  const unreadable: { uuid: string; status: 'error'; error: string; report: null }[] = [];
  for (const p of parsed) {
    if (!p.ok) {
      items.push({ ...item(null, 'error', p.error), uuid: p.uuid });
      if (p.uuid) unreadable.push({ uuid: p.uuid, status: 'error', error: items.at(-1)!.error!, report: null });
      continue;
    }
    const { report } = p;
    // The portal filters by state and date; a report that slips through is left for a sync that wants it.
    if (params.onlySuccessful && report.erasure_state !== 'successful') continue;
    if (since && !(report.erased_at && report.erased_at >= since)) continue;
    if (done.has(report.uuid) || seen.has(report.uuid)) {
      items.push(item(report, 'skipped'));
      continue;
    }
    seen.add(report.uuid);
    ours.push({ index: items.length, report });
    items.push(item(report, 'synced'));
  }

  const serials = ours.map((o) => o.report.device.serial_number!);
  const existing = new Map(
    (
      await prisma.asset.findMany({
        where: { serial_number: { in: serials } },
        select: { serial_number: true, status: true, purchase_date: true },
      })
    ).map((a) => [a.serial_number!, a]),
  );
  const prepared = await prepareImport(
    services,
    caller,
    ours.map((o) => assetRow(o.report, params, existing)),
    'blancco',
  );
  // Row problems (an out-of-range spec, a serial twice in one page, …) make the report an error item.
  const problems = new Map<number, string[]>();
  for (const e of prepared.errors) problems.set(e.index!, [...(problems.get(e.index!) ?? []), `${e.field}: ${e.reason}`]);
  ours.forEach((o, i) => {
    const problem = problems.get(i);
    if (problem) Object.assign(items[o.index]!, { status: 'error', error: clip(problem.join('; ')) });
  });
  // Errors without a uuid cannot be recorded: they are reported in the answer only.
  const rows = [...ours.map((o) => reportRow(o.report, items[o.index]!.status, items[o.index]!.error)), ...unreadable];
  if (rows.length === 0) {
    await recordProgress(prisma, runId, items);
    return items;
  }

  await prisma.$transaction(
    async (tx) => {
      const claimed = new Set(
        (await tx.$queryRawUnsafe<{ uuid: string }[]>(CLAIM, JSON.stringify(rows), caller.orgId, runId)).map((r) => r.uuid),
      );
      // The import record counts the page's row problems as failed rows; only claimed good rows are written.
      const toWrite: PreparedImport = { ...prepared, rows: [] };
      ours.forEach((o, i) => {
        const target = items[o.index]!;
        if (!claimed.has(o.report.uuid)) {
          // Synced by a concurrent run between our check and this transaction.
          if (target.status === 'synced') Object.assign(target, { status: 'skipped', error: null });
          return;
        }
        if (target.status !== 'synced') return;
        const row = prepared.rows.find((r) => r.position.index === i);
        if (row) toWrite.rows.push(row);
      });
      const outcome = await writeImport(tx, caller, toWrite);
      const links = outcome.assets.map((a) => {
        const o = ours[a.index!]!;
        Object.assign(items[o.index]!, { asset_id: a.id, calculation_id: a.calculation_id, total_kg_co2e: a.total_kg_co2e });
        return { uuid: o.report.uuid, asset_id: a.id, calculation_id: a.calculation_id };
      });
      if (links.length) await tx.$executeRawUnsafe(LINK, JSON.stringify(links), caller.orgId);
      await recordProgress(tx, runId, items);
    },
    { timeout: 60_000 },
  );
  return items;
}

/** A page's counts added to its run, and the run's lease renewed. */
async function recordProgress(prisma: Pick<ErasureContext['prisma'], 'erasureSyncRun'>, runId: string, items: SyncItem[]) {
  const counts = count(items);
  await prisma.erasureSyncRun.update({
    where: { id: runId },
    data: {
      synced: { increment: counts.synced },
      skipped: { increment: counts.skipped },
      errors: { increment: counts.errors },
      lease_expires_at: new Date(Date.now() + SYNC_LEASE_SECONDS * 1000),
    },
  });
}

const count = (items: SyncItem[]) => ({
  synced: items.filter((i) => i.status === 'synced').length,
  skipped: items.filter((i) => i.status === 'skipped').length,
  errors: items.filter((i) => i.status === 'error').length,
});

export async function syncErasureReports(ctx: ErasureContext, input: SyncInput): Promise<SyncResult> {
  const { prisma, services } = ctx;
  const limit = checkLimit(input.limit);
  if (input.sinceDate != null) checkSinceDate(input.sinceDate);
  if (input.country != null) checkCountry(services, input.country, 'country');
  const { connection, apiKey } = await openConnection(ctx);
  const { params, cursor: startCursor, continuedFrom } = await resolveStart(ctx, input, connection.default_country);
  const client = new BlanccoClient(connection.base_url, apiKey, services.config.erasure);
  const run = await startRun(ctx, params, continuedFrom);
  const details: SyncItem[] = [];
  let cursor = startCursor;
  let received = 0;
  try {
    for (;;) {
      const page = await client.exportPage({
        since: sinceOf(params),
        onlySuccessful: params.onlySuccessful,
        size: pageSize(limit - received),
        cursor,
      });
      let reports: unknown[];
      try {
        reports = reportsOfPage(page.body);
      } catch (error) {
        if (!(error instanceof BlanccoPageError)) throw error;
        throw new ApiError(
          502,
          'ERASURE_CONSOLE_BAD_RESPONSE',
          'Erasure console unavailable',
          `the erasure console answered a page that is not a report list: ${error.message}`,
        );
      }
      details.push(...(await processPage(ctx, run.id, params, reports)));
      received += reports.length;
      cursor = page.cursor;
      // The position is kept with every page: a continuation resumes after the last committed page.
      await prisma.erasureSyncRun.update({ where: { id: run.id }, data: { cursor } });
      if (!cursor || received >= limit || reports.length === 0) break;
    }
  } catch (error) {
    await finishRun(ctx, run.id, details, cursor, error);
    throw error;
  }
  return finishRun(ctx, run.id, details, cursor);
}

/** Closes the run: counts, audit-log row and (on success) the webhook event, in one transaction. */
async function finishRun(
  ctx: ErasureContext,
  runId: string,
  details: SyncItem[],
  cursor: string | null,
  failure?: unknown,
): Promise<SyncResult> {
  const { prisma, caller } = ctx;
  const counts = count(details);
  const has_more = !failure && cursor !== null;
  const apiError = failure instanceof ApiError ? failure : undefined;
  const result: SyncResult = { sync_run_id: runId, ...counts, details, has_more, continuation: has_more ? runId : null };
  const summary = { sync_run_id: runId, ...counts, has_more, continuation: result.continuation };
  await prisma.$transaction(async (tx) => {
    const now = new Date();
    await tx.erasureSyncRun.update({
      where: { id: runId },
      data: {
        status: failure ? 'failed' : 'completed',
        finished_at: now,
        lease_expires_at: null,
        has_more,
        cursor,
        error_code: failure ? (apiError?.code ?? 'INTERNAL_ERROR') : null,
        error_message: failure ? (apiError?.details ?? 'unexpected error') : null,
      },
    });
    if (!failure) await tx.erasureConnection.updateMany({ where: { provider: 'blancco' }, data: { last_synced_at: now } });
    const event = failure ? 'org.erasure.sync.failed' : 'org.erasure.sync.completed';
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        event,
        { type: 'erasure_sync_run', id: runId },
        failure ? { ...summary, error_code: apiError?.code ?? 'INTERNAL_ERROR' } : summary,
      ),
    });
    if (!failure) await enqueueWebhookEvent(tx, caller.orgId, 'org.erasure.sync.completed', summary);
  });
  return result;
}
