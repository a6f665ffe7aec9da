import { describe, expect, it } from 'vitest';
import { certificateView, largeReportView, summaryView } from './fixtures.ts';
import { boundCertificateView, boundReportView, LIST_ROWS, TABLE_ROWS, TEXT_CHARS, TREND_BUCKETS } from './limits.ts';

const sum = (rows: { total_kg_co2e: number }[]) => rows.reduce((a, r) => a + r.total_kg_co2e, 0);

describe('document bounds', () => {
  it('lists the 59 largest of 200 countries and sums the rest in one row, keeping the total', () => {
    const view = largeReportView();
    const bounded = boundReportView(view);
    expect(bounded.by_country).toHaveLength(TABLE_ROWS);
    expect(bounded.by_country.at(-1)).toMatchObject({ label: 'All other 141 countries' });
    expect(sum(bounded.by_country)).toBeCloseTo(sum(view.by_country), 6);
    expect(bounded.by_category).toHaveLength(48);
    expect(bounded.notes.at(-1)).toBe(
      'Countries: the 59 largest of 200 are listed; the other 141 are summed in the row “All other 141 countries”.',
    );
  });

  it('ranks rows largest first whatever order they come in', () => {
    const bounded = boundReportView({ ...summaryView, by_category: [...summaryView.by_category].reverse() });
    expect(bounded.by_category.map((r) => r.label)).toEqual(summaryView.by_category.map((r) => r.label));
  });

  it('keeps the latest trend columns and says so', () => {
    const months = Array.from({ length: TREND_BUCKETS + 5 }, (_, i) => {
      const period = `${2000 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
      return { period, label: period, total_kg_co2e: i };
    });
    const bounded = boundReportView({ ...summaryView, trend: { granularity: 'month', buckets: [...months].reverse() } });
    expect(bounded.trend.buckets).toEqual(months.slice(5));
    expect(bounded.notes).toContain(`The trend chart shows the last ${TREND_BUCKETS} of ${TREND_BUCKETS + 5} months.`);
  });

  it('cuts overlong text and folds extra data sources into one row', () => {
    const source = { label: 'Grid', source: 'x'.repeat(2000), version: null, valid_from: null };
    const bounded = boundCertificateView({ ...certificateView, data_sources: Array.from({ length: 80 }, () => source) });
    expect(bounded.data_sources).toHaveLength(LIST_ROWS);
    expect(bounded.data_sources.at(-1)!.label).toBe('31 more data sources');
    expect(bounded.data_sources[0]!.source).toHaveLength(TEXT_CHARS);
    expect(bounded.data_sources[0]!.source.endsWith('…')).toBe(true);
  });
});
