import { Webhook } from 'standardwebhooks';
import type { Prisma, PrismaClient } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import { SERVICE_VERSION } from '../version.ts';
import { ENDPOINT_DELETED } from './endpoints.ts';
import type { ApiError } from '../errors/api-error.ts';
import { parseOutboundUrl, resolvePublicHost } from '../net/url-guard.ts';
import { pinnedPost } from '../net/pinned-request.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits before each retry, after the first attempt failed: the Standard Webhooks (Svix) schedule,
 * 7 attempts over about 18 hours. An attempt that fails after the last is final.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];

export const USER_AGENT = `LCF-Webhooks/${SERVICE_VERSION}`;
/** Response bytes read for the error text of a failed attempt; the body itself is not kept. */
const RESPONSE_EXCERPT_BYTES = 1_024;
const ERROR_TEXT_CHARS = 200;

export interface WebhookDispatcherOptions {
  /** config.webhooks.allowPrivateUrls: deliver to loopback/private/link-local addresses (tests, private networks). */
  allowPrivateUrls: boolean;
  retryDelaysMs?: readonly number[];
  /** How often to look for due attempts when idle. */
  pollIntervalMs?: number;
  /** Per attempt: name resolution, then the whole HTTP exchange, each bounded by this. */
  timeoutMs?: number;
  /** Attempts in flight at once (and claimed per query). */
  batchSize?: number;
}

interface ClaimedAttempt {
  id: string;
  endpoint_id: string;
  message_id: string;
  payload: Prisma.JsonValue;
  attempt: number;
}

type Endpoint = { id: string; url: string; secret: string; active: boolean; deleted_at: Date | null };

type Outcome =
  | { ok: true; responseStatus: number; durationMs: number }
  | { ok: false; responseStatus: number | null; error: string; durationMs: number | null; retry: boolean };

/**
 * Delivers queued webhook attempts (rows of webhook_deliveries with status pending whose
 * next_attempt_at has come). Any number of dispatchers, in any number of processes, may run on
 * one database: each claims attempts with FOR UPDATE SKIP LOCKED and holds them by pushing
 * next_attempt_at past a lease. A dispatcher that dies mid-attempt loses its claim when the lease
 * ends, and the attempt is made again with the same webhook-id (at-least-once delivery).
 * Each attempt is its own row; a failure queues the next one until the schedule is exhausted.
 */
export class WebhookDispatcher {
  private readonly retryDelaysMs: readonly number[];
  private readonly pollIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  /** How long a claim holds an attempt: longer than the attempt can take (resolution + exchange + bookkeeping). */
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private polling: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? SECOND;
    this.timeoutMs = options.timeoutMs ?? 10 * SECOND;
    this.batchSize = options.batchSize ?? 16;
    this.leaseMs = 2 * this.timeoutMs + 30 * SECOND;
  }

  /** Polls until stop(): whenever a slot is free and an attempt is due, it is made. */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.poll();
  }

  /** Stops polling and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims the attempts due now (up to batchSize), makes them and returns how many. */
  async runOnce(): Promise<number> {
    const attempts = await this.claim(this.batchSize);
    await Promise.all(attempts.map((deliver) => deliver()));
    return attempts.length;
  }

  private poll(): Promise<void> {
    if (!this.running || this.polling) return this.polling ?? Promise.resolve();
    clearTimeout(this.timer);
    this.polling = (async () => {
      try {
        const free = this.batchSize - this.inFlight.size;
        if (free <= 0) return;
        for (const deliver of await this.claim(free)) {
          const attempt = deliver().finally(() => {
            this.inFlight.delete(attempt);
            // A free slot: look for more at once rather than at the next interval.
            if (this.running) setImmediate(() => void this.poll());
          });
          this.inFlight.add(attempt);
        }
      } catch (error) {
        this.log.error({ err: error }, 'webhook dispatcher: claiming attempts failed');
      } finally {
        this.polling = undefined;
        if (this.running) this.timer = setTimeout(() => void this.poll(), this.pollIntervalMs);
      }
    })();
    return this.polling;
  }

  /** Claims up to `limit` due attempts; returns one function per attempt that makes it (never rejects). */
  private async claim(limit: number): Promise<(() => Promise<void>)[]> {
    const claimed = await this.prisma.$queryRaw<ClaimedAttempt[]>`
      UPDATE webhook_deliveries SET next_attempt_at = now() + ${this.leaseMs}::integer * interval '1 millisecond'
      WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at
        LIMIT ${limit}::integer
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id::text, endpoint_id::text, message_id, payload, attempt`;
    if (claimed.length === 0) return [];
    const endpoints = await this.prisma.webhookEndpoint.findMany({
      where: { id: { in: [...new Set(claimed.map((a) => a.endpoint_id))] } },
      select: { id: true, url: true, secret: true, active: true, deleted_at: true },
    });
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    return claimed.map((attempt) => () => this.deliver(attempt, byId.get(attempt.endpoint_id)));
  }

  /** Makes one attempt and records it; a failure of one attempt never reaches the others. */
  private async deliver(attempt: ClaimedAttempt, endpoint: Endpoint | undefined): Promise<void> {
    const startedAt = new Date();
    const context = { delivery_id: attempt.id, message_id: attempt.message_id, endpoint_id: attempt.endpoint_id, attempt: attempt.attempt };
    let outcome: Outcome;
    try {
      outcome =
        !endpoint?.active || endpoint.deleted_at
          ? { ok: false, responseStatus: null, error: ENDPOINT_DELETED, durationMs: null, retry: false }
          : await this.send(attempt, endpoint);
    } catch (error) {
      this.log.error({ ...context, err: error }, 'webhook attempt failed unexpectedly');
      outcome = { ok: false, responseStatus: null, error: 'internal error', durationMs: null, retry: true };
    }
    try {
      await this.record(attempt, startedAt, outcome);
    } catch (error) {
      // Not recorded: the claim lapses after the lease and the attempt is made again.
      this.log.error({ ...context, err: error }, 'webhook attempt could not be recorded');
      return;
    }
    if (outcome.ok) this.log.debug({ ...context, status: outcome.responseStatus }, 'webhook delivered');
    else this.log.warn({ ...context, status: outcome.responseStatus, error: outcome.error }, 'webhook attempt failed');
  }

  private async send(attempt: ClaimedAttempt, endpoint: Endpoint): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = parseOutboundUrl(endpoint.url);
    } catch (error) {
      return { ok: false, responseStatus: null, error: `URL not allowed: ${(error as ApiError).details}`, durationMs: null, retry: false };
    }
    // Checked again now: DNS may have changed since registration, and the flag may be off.
    const resolution = await resolvePublicHost(url, this.options.allowPrivateUrls, this.timeoutMs);
    if ('refused' in resolution)
      return { ok: false, responseStatus: null, error: `URL not allowed: ${resolution.refused}`, durationMs: elapsed(), retry: true };

    const body = JSON.stringify(attempt.payload);
    // Signed per attempt: receivers refuse timestamps more than five minutes off.
    const timestamp = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': attempt.message_id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(endpoint.secret).sign(attempt.message_id, timestamp, body),
    };
    try {
      const answer = await pinnedPost(url, resolution.addresses, {
        headers,
        body,
        maxBytes: RESPONSE_EXCERPT_BYTES,
        timeoutMs: this.timeoutMs,
      });
      const response = { status: answer.status, excerpt: answer.body.toString('utf8') };
      if (response.status >= 200 && response.status < 300) return { ok: true, responseStatus: response.status, durationMs: elapsed() };
      const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : '';
      const excerpt = response.excerpt ? `: ${response.excerpt}` : '';
      return {
        ok: false,
        responseStatus: response.status,
        error: errorText(`HTTP ${response.status}${redirect}${excerpt}`),
        durationMs: elapsed(),
        retry: true,
      };
    } catch (error) {
      return { ok: false, responseStatus: null, error: errorText(networkError(error)), durationMs: elapsed(), retry: true };
    }
  }

  private async record(attempt: ClaimedAttempt, deliveredAt: Date, outcome: Outcome): Promise<void> {
    const done = {
      response_status: outcome.responseStatus,
      duration_ms: outcome.durationMs,
      delivered_at: outcome.durationMs === null ? null : deliveredAt,
    };
    // Only while still pending: an attempt closed meanwhile (its endpoint deleted) stays closed.
    const where = { id: attempt.id, status: 'pending' as const };
    if (outcome.ok) {
      await this.prisma.webhookDelivery.updateMany({ where, data: { ...done, status: 'succeeded', error: null } });
      return;
    }
    const delay = this.retryDelaysMs[attempt.attempt - 1];
    if (!outcome.retry || delay === undefined) {
      await this.prisma.webhookDelivery.updateMany({ where, data: { ...done, status: 'failed', error: outcome.error } });
      return;
    }
    // One statement: the attempt is closed and its successor queued together, or neither.
    await this.prisma.$executeRaw`
      WITH closed AS (
        UPDATE webhook_deliveries
        SET status = 'failed', error = ${outcome.error}, response_status = ${done.response_status}::integer,
            duration_ms = ${done.duration_ms}::integer, delivered_at = ${done.delivered_at}::timestamptz
        WHERE id = ${attempt.id}::uuid AND status = 'pending'
        RETURNING org_id, endpoint_id, message_id, event, payload, attempt
      )
      INSERT INTO webhook_deliveries (id, org_id, endpoint_id, message_id, event, payload, attempt, status, next_attempt_at, created_at)
      SELECT gen_random_uuid(), org_id, endpoint_id, message_id, event, payload, attempt + 1, 'pending',
             now() + ${delay}::integer * interval '1 millisecond', now()
      FROM closed`;
  }
}

function networkError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'TIMEOUT') return message ?? 'timed out';
  return code ? `network error: ${code}` : `network error: ${message ?? String(error)}`;
}

/** Short, single-line, printable: it is shown in the delivery log. */
function errorText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text
    .replace(/[\u0000-\u001F\u007F-\u009F]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > ERROR_TEXT_CHARS ? `${clean.slice(0, ERROR_TEXT_CHARS - 1)}…` : clean;
}
