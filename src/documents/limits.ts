import type { CertificateView, ReportView } from './views.ts';

/**
 * Bounds on what a document draws, applied before a view is handed to a render worker (so the work
 * and the copy to the worker are bounded too). Nothing is dropped silently: folded rows are summed
 * into a last row and the document says so in its notes.
 */
/** Bars in one ranking chart; the table under it lists more. */
export const CHART_ROWS = 12;
/** Rows in one table: beyond, the largest TABLE_ROWS - 1 rows are listed and the rest summed in one row. */
export const TABLE_ROWS = 60;
/** Columns in the trend chart (a report has at most 111: months up to 2 years, quarters up to 8, then years); beyond, the latest are kept. */
export const TREND_BUCKETS = 120;
/** Actions, components, targets, data sources and notes: more is not a document, it is an export. */
export const LIST_ROWS = 50;
/** Characters of any one text: longer text is cut with an ellipsis (the layouts shorten further to fit). */
export const TEXT_CHARS = 500;

const cut = (text: string): string => (text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text);

/** A ranked row whose figure is in `key`: total_kg_co2e (the breakdowns) or value (the hotspots, in their criterion's unit). */
type Ranked<K extends string> = { label: string; assets: number; share_pct: number } & Record<K, number>;

/** Largest first, then by label, so the same data always ranks the same way. */
function fold<K extends 'total_kg_co2e' | 'value'>(rows: Ranked<K>[], key: K, what: string, notes: string[]): Ranked<K>[] {
  const sorted = rows.map((r) => ({ ...r, label: cut(r.label) })).sort((a, b) => b[key] - a[key] || a.label.localeCompare(b.label, 'en'));
  if (sorted.length <= TABLE_ROWS) return sorted;
  const kept = sorted.slice(0, TABLE_ROWS - 1);
  const rest = sorted.slice(TABLE_ROWS - 1);
  const label = `All other ${rest.length} ${what}`;
  notes.push(
    `${what[0]!.toUpperCase()}${what.slice(1)}: the ${kept.length} largest of ${sorted.length} are listed; the other ${rest.length} are summed in the row “${label}”.`,
  );
  const folded = {
    label,
    assets: rest.reduce((sum, r) => sum + r.assets, 0),
    [key]: rest.reduce((sum, r) => sum + r[key], 0),
    share_pct: rest.reduce((sum, r) => sum + r.share_pct, 0),
  } as Ranked<K>;
  return [...kept, folded];
}

function cap<T>(list: T[], what: string, notes: string[]): T[] {
  if (list.length <= LIST_ROWS) return list;
  notes.push(`${what[0]!.toUpperCase()}${what.slice(1)}: the first ${LIST_ROWS} of ${list.length} are shown.`);
  return list.slice(0, LIST_ROWS);
}

export function boundReportView(view: ReportView): ReportView {
  const notes: string[] = [];
  const buckets = [...view.trend.buckets].sort((a, b) => a.period.localeCompare(b.period));
  if (buckets.length > TREND_BUCKETS)
    notes.push(`The trend chart shows the last ${TREND_BUCKETS} of ${buckets.length} ${view.trend.granularity}s.`);
  const hotspots = view.hotspots && {
    ...view.hotspots,
    categories: fold(view.hotspots.categories, 'value', 'hotspot categories', notes),
    models: fold(view.hotspots.models, 'value', 'hotspot models', notes),
    components: cap(view.hotspots.components, 'components', notes).map((c) => ({ ...c, component: cut(c.component) })),
    actions: cap(view.hotspots.actions, 'actions', notes).map((a) => ({ ...a, action: cut(a.action), basis: cut(a.basis) })),
  };
  return {
    ...view,
    organization_name: cut(view.organization_name),
    period_semantics: cut(view.period_semantics),
    by_category: fold(view.by_category, 'total_kg_co2e', 'categories', notes),
    by_country: fold(view.by_country, 'total_kg_co2e', 'countries', notes),
    trend: { ...view.trend, buckets: buckets.slice(-TREND_BUCKETS) },
    // Every source a figure rests on is listed: their number is bounded by the reference data's regions.
    grid_factor_sources: view.grid_factor_sources.map((s) => ({
      ...s,
      source: cut(s.source),
      version: cut(s.version),
      licence: s.licence && cut(s.licence),
    })),
    savings: view.savings && { ...view.savings, basis: cut(view.savings.basis) },
    sbti_targets:
      view.sbti_targets && cap(view.sbti_targets, 'targets', notes).map((t) => ({ ...t, name: cut(t.name), scope: cut(t.scope) })),
    hotspots,
    notes: [...cap(view.notes, 'notes', notes).map(cut), ...notes],
  };
}

export function boundCertificateView(view: CertificateView): CertificateView {
  const sources = view.data_sources.map((s) => ({ ...s, label: cut(s.label), source: cut(s.source) }));
  const more = sources.length - (LIST_ROWS - 1);
  return {
    ...view,
    organization_name: cut(view.organization_name),
    product: { ...view.product, brand: cut(view.product.brand), name: cut(view.product.name) },
    data_sources:
      more > 1
        ? [
            ...sources.slice(0, LIST_ROWS - 1),
            { label: `${more} more data sources`, source: 'listed in the calculation record', version: null, valid_from: null },
          ]
        : sources,
  };
}
