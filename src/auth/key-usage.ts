import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';

/** How stale `api_keys.last_used_at` may be: each key's time is written at most this often, per instance. */
export const KEY_USAGE_RESOLUTION_MS = 60_000;

/**
 * When each API key was last used (`api_keys.last_used_at`, shown in the console and the admin API).
 * A request only notes its key in memory; a timer writes the noted keys in one statement, so no
 * request waits for the write and a busy key costs one row update a minute, not one per request.
 */
export class KeyUsage {
  private readonly noted = new Set<string>();
  private readonly writtenAt = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly resolutionMs = KEY_USAGE_RESOLUTION_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), resolutionMs);
    this.timer.unref();
  }

  /** Notes a request by the key; free when its time was written within the resolution. */
  note(keyId: string): void {
    const written = this.writtenAt.get(keyId);
    if (written !== undefined && Date.now() - written < this.resolutionMs) return;
    this.noted.add(keyId);
  }

  /** Writes the noted keys' time of use; a failure is logged and the time written on a later use. */
  async flush(): Promise<void> {
    if (this.noted.size === 0) return;
    const ids = [...this.noted];
    this.noted.clear();
    const now = new Date();
    for (const id of ids) this.writtenAt.set(id, now.getTime());
    if (this.writtenAt.size > 100_000) this.writtenAt.clear();
    try {
      // Another instance may have written a later time: never move it back.
      await this.prisma
        .$executeRaw`UPDATE api_keys SET last_used_at = ${now} WHERE id = ANY(${ids}::uuid[]) AND (last_used_at IS NULL OR last_used_at < ${now})`;
    } catch (error) {
      for (const id of ids) this.writtenAt.delete(id);
      this.log.warn({ err: error, keys: ids.length }, 'recording when API keys were last used failed');
    }
  }

  /** Stops the timer and writes what is noted (at shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
