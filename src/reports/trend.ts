/**
 * The trend's time buckets: months for a period of up to two years, quarters up to eight years,
 * years beyond (1990..2100 gives at most 111). The buckets are generated from the period's ends by
 * counting, so the work is the number of buckets, never the number of days or months of the period.
 */
export type TrendGranularity = 'month' | 'quarter' | 'year';

export const MONTHLY_UP_TO_MONTHS = 24;
export const QUARTERLY_UP_TO_MONTHS = 96;

/** The bucket key of a purchase date in SQL, the same text as bucketsOf's keys ('2025-03', '2025-Q1', '2025'). */
export const BUCKET_SQL: Record<TrendGranularity, string> = {
  month: `to_char(purchase_date, 'YYYY-MM')`,
  quarter: `to_char(purchase_date, 'YYYY-"Q"Q')`,
  year: `to_char(purchase_date, 'YYYY')`,
};

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_PER_BUCKET: Record<TrendGranularity, number> = { month: 1, quarter: 3, year: 12 };

/** Months since year 0 of a YYYY-MM-DD day: an integer, so periods compare and count as numbers. */
const monthIndex = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;

export function granularityOf(dateFrom: string, dateTo: string): TrendGranularity {
  const months = monthIndex(dateTo) - monthIndex(dateFrom) + 1;
  return months <= MONTHLY_UP_TO_MONTHS ? 'month' : months <= QUARTERLY_UP_TO_MONTHS ? 'quarter' : 'year';
}

export interface TrendBucket {
  /** '2025-03', '2025-Q1' or '2025'. */
  period: string;
  /** 'Mar 2025', 'Q1 2025' or '2025'. */
  label: string;
}

/** Every bucket that overlaps the period, oldest first (the first and last may be partly outside it). */
export function bucketsOf(dateFrom: string, dateTo: string, granularity: TrendGranularity): TrendBucket[] {
  const size = MONTHS_PER_BUCKET[granularity];
  const first = Math.floor(monthIndex(dateFrom) / size);
  const last = Math.floor(monthIndex(dateTo) / size);
  const buckets: TrendBucket[] = [];
  for (let i = first; i <= last; i++) {
    const year = Math.floor((i * size) / 12);
    const month = (i * size) % 12;
    if (granularity === 'month')
      buckets.push({ period: `${year}-${String(month + 1).padStart(2, '0')}`, label: `${MONTH_NAMES[month]} ${year}` });
    else if (granularity === 'quarter') buckets.push({ period: `${year}-Q${month / 3 + 1}`, label: `Q${month / 3 + 1} ${year}` });
    else buckets.push({ period: String(year), label: String(year) });
  }
  return buckets;
}
