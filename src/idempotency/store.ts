import type { PrismaClient } from '../db/database.ts';

/** An answer kept for the repeats of its key: status, the headers that describe it, the body's bytes. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What the store says of a request with a key: run it (the key is now held for it), replay, or refuse. */
export type Claim =
  | { kind: 'reserved' }
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request (method, path, query or body) within its lifetime. */
  | { kind: 'reused' }
  /** The first request with the key is still running. */
  | { kind: 'in-progress' };

export interface IdempotencyStoreOptions {
  /** How long a key and its answer are kept from the first request. Default 24 hours. */
  ttlMs?: number;
  /** How long a running request holds its key; a repeat after that takes the key over (the first one's process died). Default 5 minutes. */
  leaseMs?: number;
  /** How often one instance deletes expired keys, piggybacked on a claim. Default 10 minutes; 0 disables it. */
  pruneEveryMs?: number;
  /** The clock (tests move it past the key's lifetime). */
  now?: () => Date;
  /** Called when the clean-up fails (the claim itself is unaffected). */
  onPruneError?: (error: unknown) => void;
}

interface RecordRow {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
  expires_at: Date;
}

// One statement, atomic on PGlite and PostgreSQL alike: a new key is inserted; an existing one is taken over
// only when it expired, or when its first request (same fingerprint) stopped answering past its lease.
// Anything else leaves the row as it is and returns nothing, never a read before the write.
const RESERVE_SQL = `
INSERT INTO idempotency_records (scope, key, fingerprint, created_at, expires_at, locked_until)
VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, $6::timestamptz)
ON CONFLICT (scope, key) DO UPDATE SET
  fingerprint = EXCLUDED.fingerprint, status = NULL, headers = NULL, body = NULL,
  created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, locked_until = EXCLUDED.locked_until
WHERE idempotency_records.expires_at <= EXCLUDED.created_at
   OR (idempotency_records.status IS NULL AND idempotency_records.locked_until <= EXCLUDED.created_at
       AND idempotency_records.fingerprint = EXCLUDED.fingerprint)
RETURNING scope`;

/**
 * Idempotency keys in the database (table idempotency_records), shared by every instance on it: a key
 * is reserved atomically before its request runs, the answer stored when it is answered, and replayed
 * to repeats until the key expires. Expired keys are ignored at once and deleted now and then.
 */
export class IdempotencyStore {
  private readonly ttlMs: number;
  private readonly leaseMs: number;
  private readonly pruneEveryMs: number;
  private readonly now: () => Date;
  private readonly onPruneError: (error: unknown) => void;
  private lastPruneAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly prisma: PrismaClient,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 24 * 3_600_000;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.pruneEveryMs = options.pruneEveryMs ?? 10 * 60_000;
    this.now = options.now ?? (() => new Date());
    this.onPruneError = options.onPruneError ?? (() => {});
  }

  /** Reserves `key` in `scope` for a request of `fingerprint`, or says why not (a stored answer, another request, still running). */
  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    this.pruneNowAndThen();
    for (;;) {
      const now = this.now();
      const reserved = await this.prisma.$queryRawUnsafe<unknown[]>(
        RESERVE_SQL,
        scope,
        key,
        fingerprint,
        now.toISOString(),
        new Date(now.getTime() + this.ttlMs).toISOString(),
        new Date(now.getTime() + this.leaseMs).toISOString(),
      );
      if (reserved.length > 0) return { kind: 'reserved' };
      const [row] = await this.prisma.$queryRawUnsafe<RecordRow[]>(
        'SELECT fingerprint, status, headers, body, expires_at FROM idempotency_records WHERE scope = $1 AND key = $2',
        scope,
        key,
      );
      // Released (its request failed) or expired between the two statements: reserve again.
      if (!row || row.expires_at <= now) continue;
      if (row.fingerprint !== fingerprint) return { kind: 'reused' };
      if (row.status === null) return { kind: 'in-progress' };
      return { kind: 'replay', answer: { status: row.status, headers: row.headers ?? {}, body: row.body ?? new Uint8Array() } };
    }
  }

  /** Stores the answer of the request that holds `key`. */
  async complete(scope: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.prisma.$executeRawUnsafe(
      'UPDATE idempotency_records SET status = $3, headers = $4::jsonb, body = $5, locked_until = NULL WHERE scope = $1 AND key = $2',
      scope,
      key,
      answer.status,
      JSON.stringify(answer.headers),
      Buffer.from(answer.body),
    );
  }

  /** Lets go of `key` without an answer (it failed, or is too large to keep): the next request with it runs again. */
  async release(scope: string, key: string): Promise<void> {
    await this.prisma.$executeRawUnsafe('DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND status IS NULL', scope, key);
  }

  /** Deletes the keys that expired before `before`; returns how many went. */
  async prune(before: Date = this.now()): Promise<number> {
    return this.prisma.$executeRawUnsafe('DELETE FROM idempotency_records WHERE expires_at <= $1::timestamptz', before.toISOString());
  }

  private pruneNowAndThen(): void {
    if (this.pruneEveryMs <= 0) return;
    const now = this.now().getTime();
    if (now - this.lastPruneAt < this.pruneEveryMs) return;
    this.lastPruneAt = now;
    this.prune().catch(this.onPruneError);
  }
}
