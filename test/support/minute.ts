import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits out the last 15 seconds of a UTC minute, so a test that fills a per-minute counter finds the
 * whole sequence in one minute window (counters reset at each minute boundary).
 */
export async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 100);
}
