/**
 * Which vintage of an emission factor applies at a date (pure). Validity periods are calendar
 * days in UTC with an inclusive `valid_to`; the newest vintage has `valid_to` null.
 */

export interface Vintage {
  valid_from: Date;
  valid_to: Date | null;
}

/** Midnight UTC of the calendar day of `date`. Throws a RangeError for an invalid Date. */
export function utcDay(date: Date): Date {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/**
 * The vintage valid on the UTC day of `at`: valid_from <= day and (valid_to null or >= day); of
 * several, the one that starts latest. A day before the oldest vintage gets the oldest; a day in a
 * gap between vintages (or after a closed last one) gets the latest vintage that started before it.
 * Undefined only for an empty list.
 */
/** Vintages are chosen by the UTC day (vintageAt): the choice made at `at` holds until the next day starts (ms since the epoch). */
export const vintageChoiceHoldsUntil = (at: Date): number => utcDay(at).getTime() + 86_400_000;

export function vintageAt<T extends Vintage>(vintages: readonly T[], at: Date): T | undefined {
  if (vintages.length === 0) return undefined;
  const day = utcDay(at).getTime();
  const byStart = [...vintages].sort((a, b) => a.valid_from.getTime() - b.valid_from.getTime());
  const started = byStart.filter((v) => v.valid_from.getTime() <= day);
  if (started.length === 0) return byStart[0];
  const valid = started.filter((v) => v.valid_to === null || v.valid_to.getTime() >= day);
  return (valid.length ? valid : started)[(valid.length ? valid : started).length - 1];
}
