import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Plan } from '../auth/quota/index.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from './logger.ts';

/** Label of a request whose path is no route of the service (its 404s), whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The job-queue counts run at scrape time; a scrape waits this long for them, then leaves them out. */
const QUEUE_COUNT_TIMEOUT_MS = 2_000;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
// From the sub-millisecond REST fast path to slow report and CSV requests.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Which allowance refused a request: the request quota's windows, or the monthly report allowance. */
export type QuotaLimit = 'day' | 'minute' | 'monthly_reports';

/**
 * The service's Prometheus metrics, in a registry of its own per app instance (tests run several
 * apps in one process). Counters are updated as things happen; gauges read their source at scrape time.
 */
export class Metrics {
  private readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'lcf_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'lcf_http_request_duration_seconds',
    help: 'Time from receiving a request to its response headers, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly fastAnswers = new Counter({
    name: 'lcf_fast_path_answers_total',
    help: 'Repeated GETs answered on node:http by the REST fast path (also counted in lcf_http_requests_total), by route pattern and whether the answer was reused (memory) or resolved again (resolver)',
    labelNames: ['route', 'answer'] as const,
    registers: [this.registry],
  });
  private readonly quotaRefusals = new Counter({
    name: 'lcf_quota_refusals_total',
    help: 'Requests refused with 429 because an allowance of the plan was used up, by plan and limit (day, minute, monthly_reports)',
    labelNames: ['plan', 'limit'] as const,
    registers: [this.registry],
  });

  /** `calculations`: the calculation writer of a server process (`lcf worker` has none). */
  constructor({
    db,
    calculations,
    log,
  }: { db: Database; calculations?: { readonly backlog: number; readonly failures: number }; log: Logger }) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });

    if (calculations) {
      gauge(
        'lcf_calculation_writer_backlog',
        'Calculation records waiting to be committed (queued or being written)',
        () => calculations.backlog,
      );
      new Counter({
        name: 'lcf_calculation_writer_failures_total',
        help: 'Calculation records that could not be stored (their calls answered calculation_id null)',
        registers,
        // The writer keeps the count; the counter mirrors it at each scrape.
        collect() {
          this.reset();
          this.inc(calculations.failures);
        },
      });
    }

    // The embedded database's pool is its one connection (src/db/database.ts): not reported.
    const pool = db.pool;
    if (pool) {
      gauge('lcf_db_pool_connections', 'Open connections of the PostgreSQL pool', () => pool.totalCount);
      gauge('lcf_db_pool_idle_connections', 'Open connections of the PostgreSQL pool not in use', () => pool.idleCount);
      gauge('lcf_db_pool_waiting_queries', 'Queries waiting for a free connection of the PostgreSQL pool', () => pool.waitingCount);
      gauge('lcf_db_pool_max_connections', 'Size limit of the PostgreSQL pool (DATABASE_POOL_SIZE)', () => pool.options.max ?? 0);
    }

    new Gauge({
      name: 'lcf_queue_depth',
      help: `Jobs waiting or running, counted at scrape time (left out when the count takes over ${QUEUE_COUNT_TIMEOUT_MS} ms)`,
      labelNames: ['queue', 'status'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const depth = await withTimeout(queueDepths(db), QUEUE_COUNT_TIMEOUT_MS);
          this.set({ queue: 'export_jobs', status: 'pending' }, depth.export_pending);
          this.set({ queue: 'export_jobs', status: 'processing' }, depth.export_processing);
          this.set({ queue: 'webhook_deliveries', status: 'pending' }, depth.webhook_pending);
          this.set({ queue: 'erasure_sync_runs', status: 'running' }, depth.erasure_sync_running);
        } catch (error) {
          log.warn({ err: error }, 'metrics: job queue depths not counted');
        }
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition in Prometheus text format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** Counts an answered request; `route` is its pattern (the route table's), never the raw path. */
  observeRequest(method: string, route: string, status: number, startedAt: number): void {
    const labels = { method: METHODS.has(method) ? method : 'other', route, status: String(status) };
    this.requests.inc(labels);
    this.durations.observe(labels, (performance.now() - startedAt) / 1000);
  }

  fastPathAnswered(route: string, answer: 'memory' | 'resolver'): void {
    this.fastAnswers.inc({ route, answer });
  }

  quotaRefused(plan: Plan, limit: QuotaLimit): void {
    this.quotaRefusals.inc({ plan, limit });
  }
}

interface QueueDepths {
  export_pending: number;
  export_processing: number;
  webhook_pending: number;
  erasure_sync_running: number;
}

// Each count runs on an index led by status (export_jobs, webhook_deliveries: @@index([status, ...])) or on the
// partial index of running syncs (erasure_sync_runs_one_running_per_org).
async function queueDepths(db: Database): Promise<QueueDepths> {
  const [row] = await db.prisma.$queryRaw<QueueDepths[]>`
    SELECT
      (SELECT count(*) FROM export_jobs WHERE status = 'pending')::int AS export_pending,
      (SELECT count(*) FROM export_jobs WHERE status = 'processing')::int AS export_processing,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS webhook_pending,
      (SELECT count(*) FROM erasure_sync_runs WHERE status = 'running')::int AS erasure_sync_running`;
  return row!;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
