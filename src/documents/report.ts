import { barChart, periodChart, type BarDatum } from './charts.ts';
import type { Chart } from './pdf.ts';
import * as fmt from './format.ts';
import { CHART_ROWS } from './limits.ts';
import { COLORS, PdfWriter, type Column } from './pdf.ts';
import { PHASES, phaseChart } from './phases.ts';
import type { ReportBreakdownRow, ReportConfidenceRow, ReportCriterion, ReportInterval, ReportRankRow, ReportView } from './views.ts';

const SANDBOX_REPORT = 'TEST — sandbox data, not a real report';
const NO_DATA = 'No data for this period';

const TITLES: Record<ReportView['type'], string> = {
  sustainability_summary: 'Sustainability summary',
  hotspot_analysis: 'Hotspot analysis',
};

const BAR_STEP = 16;

const CONFIDENCE_LABELS: Record<ReportConfidenceRow['level'], string> = {
  manufacturer_verified: 'Manufacturer-verified',
  estimated_high: 'Estimated, high',
  estimated_medium: 'Estimated, medium',
  estimated_low: 'Estimated, low',
};

const interval = (i: ReportInterval) => `${fmt.kg(i.low_kg)} to ${fmt.kg(i.high_kg)}`;

/** Header and the first rows of a table (wrapped cells included): what its heading is kept with. */
function tableStart(pdf: PdfWriter, columns: Column[], rows: string[][], size = 8.5): number {
  const step = pdf.lineHeight({ size });
  const rowHeight = (row: string[]) =>
    Math.max(...columns.map((column, i) => (column.wrap ? pdf.wrap(row[i] ?? '', column.width - 8, { size }).length : 1))) * step + 4;
  return step + 2 + rows.slice(0, 3).reduce((height, row) => height + rowHeight(row), 0);
}

/** A heading, an optional introduction and a table, the heading never left alone at the foot of a page. */
function tableSection(pdf: PdfWriter, heading: string, columns: Column[], rows: string[][], intro?: string): void {
  const introStyle = { size: 8.5, color: COLORS.muted };
  pdf.heading(heading, (intro ? pdf.heightOf(intro, pdf.width, introStyle) + 4 : 0) + tableStart(pdf, columns, rows));
  if (intro) pdf.paragraph(intro, introStyle, 4);
  pdf.table(columns, rows);
}

/** "Top 10 of 37 models" when the list is cut, else "all 7 models". */
const shownOf = (shown: number, count: number, what: string) =>
  shown < count ? `top ${shown} of ${fmt.count(count)} ${what}` : `all ${fmt.count(count)} ${what}`;

/** How a ranking's figures are written: GWP in kg CO₂e as everywhere, ADPe and PE to 4 significant digits as the API rounds them. */
interface Figures {
  /** in headings and columns */
  unit: string;
  /** after a bar's figure */
  short: string;
  format: (value: number) => string;
}

const GWP_FIGURES: Figures = { unit: 'kg CO₂e', short: 'kg', format: fmt.kg };
const figuresOf = (c: ReportCriterion): Figures =>
  c.id === 'gwp' ? GWP_FIGURES : { unit: c.unit, short: c.unit, format: fmt.significant };

/** The breakdowns (kg CO₂e) as ranked rows. */
const rankRows = (rows: ReportBreakdownRow[]): ReportRankRow[] => rows.map(({ total_kg_co2e, ...r }) => ({ ...r, value: total_kg_co2e }));

const bars = (rows: ReportRankRow[], figures: Figures): BarDatum[] =>
  rows.map((r) => ({ label: r.label, value: r.value, text: `${figures.format(r.value)} ${figures.short} · ${fmt.pct(r.share_pct)}` }));

function breakdownTable(pdf: PdfWriter, what: string, rows: ReportRankRow[], ranked: boolean, figures: Figures): void {
  const w = pdf.width;
  const columns: Column[] = [
    ...(ranked ? [{ header: '#', width: w * 0.06, align: 'right' as const }] : []),
    { header: what, width: w * (ranked ? 0.44 : 0.5) },
    { header: 'Assets', width: w * 0.14, align: 'right' },
    { header: figures.unit, width: w * 0.2, align: 'right' },
    { header: 'Share', width: w * 0.16, align: 'right' },
  ];
  pdf.table(
    columns,
    rows.map((r, i) => [...(ranked ? [String(i + 1)] : []), r.label, fmt.count(r.assets), figures.format(r.value), fmt.pct(r.share_pct)]),
  );
}

const CAPTION = { size: 8.5 };

/** A heading kept on one page with its chart and the caption under it (a table under it breaks pages by itself). */
async function chartSection(pdf: PdfWriter, heading: string, chart: Promise<Chart>, caption?: string): Promise<void> {
  const drawn = await chart;
  pdf.heading(heading, drawn.height + 4 + (caption ? pdf.heightOf(caption, pdf.width, CAPTION) : 0));
  pdf.chart(drawn, heading);
  if (caption) pdf.paragraph(caption, CAPTION);
}

/**
 * A ranking chart, a note when the table under it has more rows than the chart, then that table.
 * The chart has up to CHART_ROWS bars, fewer (not under 6) when that keeps it on the page in progress
 * instead of leaving a third of the page empty: the table lists every row anyway.
 */
async function rankedSection(
  pdf: PdfWriter,
  heading: string,
  rows: ReportRankRow[],
  what: string,
  column: string,
  ranked: boolean,
  count = rows.length,
  figures = GWP_FIGURES,
): Promise<void> {
  const fit = Math.floor((pdf.bottom - pdf.y - 60) / BAR_STEP);
  const wanted = Math.min(rows.length, CHART_ROWS);
  const shown = fit >= 6 && fit < wanted ? fit : wanted;
  await chartSection(
    pdf,
    `${heading}: ${shownOf(rows.length, count, what)}`,
    barChart(bars(rows.slice(0, shown), figures), pdf.width, BAR_STEP),
  );
  if (rows.length > shown) {
    pdf.paragraph(`The chart shows the ${shown} largest ${what}; the table below has the rest.`, { size: 8, color: COLORS.muted });
  }
  breakdownTable(pdf, column, rows, ranked, figures);
}

/** Average of the second half of the buckets against the first half: a trend that one odd month cannot swing. */
function trendSentence(trend: ReportView['trend']): string {
  const { buckets, granularity: unit } = trend;
  const span = (list: typeof buckets) => (list.length === 1 ? list[0]!.label : `${list[0]!.label} to ${list[list.length - 1]!.label}`);
  if (buckets.every((b) => b.total_kg_co2e === 0)) {
    return `Trend: none of the assets in the inventory was bought in the period (${span(buckets)}), so there is no trend of purchases to show.`;
  }
  if (buckets.length < 2) return `One ${unit} of purchases: not enough for a trend.`;
  const half = Math.floor(buckets.length / 2);
  const first = buckets.slice(0, half);
  const second = buckets.slice(buckets.length - half);
  const mean = (list: typeof buckets) => list.reduce((a, b) => a + b.total_kg_co2e, 0) / list.length;
  const [a, b] = [mean(first), mean(second)];
  if (a === 0)
    return `Trend: the assets bought in an average ${unit} of ${span(second)} carry ${fmt.kg(b)} kg CO₂e over their lives; none were bought in ${span(first)}.`;
  if (b === 0)
    return `Trend: none of the assets was bought in ${span(second)}; those bought in an average ${unit} of ${span(first)} carry ${fmt.kg(a)} kg CO₂e over their lives.`;
  const change = ((b - a) / a) * 100;
  const direction =
    Math.abs(change) < 0.05 ? 'the same as' : change < 0 ? `${fmt.pct(-change)} lower than` : `${fmt.pct(change)} higher than`;
  return `Trend: the assets bought in an average ${unit} of ${span(second)} carry ${fmt.kg(b)} kg CO₂e over their lives, ${direction} those of ${span(first)} (${fmt.kg(a)} kg CO₂e).`;
}

/** The phases chart, then each phase and the total with its share and interval. */
async function phaseSection(pdf: PdfWriter, view: ReportView): Promise<void> {
  const { totals, uncertainty } = view;
  await chartSection(pdf, 'Emissions by lifecycle phase (kg CO₂e and share)', phaseChart(totals, totals.total_kg_co2e, pdf.width));
  const w = pdf.width;
  const share = (kg: number) => fmt.pct(totals.total_kg_co2e > 0 ? (kg / totals.total_kg_co2e) * 100 : 0);
  const rows = [
    ...PHASES.map(({ key, label }) => [label, fmt.kg(totals[key]), share(totals[key]), interval(uncertainty.phases[key])]),
    ['Total', fmt.kg(totals.total_kg_co2e), share(totals.total_kg_co2e), interval(uncertainty.total)],
  ];
  const columns: Column[] = [
    { header: 'Phase', width: w * 0.3 },
    { header: 'kg CO₂e', width: w * 0.2, align: 'right' },
    { header: 'Share', width: w * 0.14, align: 'right' },
    { header: '~80 % interval, kg CO₂e', width: w * 0.36, align: 'right' },
  ];
  pdf.ensure(tableStart(pdf, columns, rows));
  pdf.table(columns, rows);
}

/** How sure the figures are: the interval's method, the confidence mix and the engine versions. */
function confidenceSection(pdf: PdfWriter, view: ReportView): void {
  const w = pdf.width;
  const engines = view.engine_versions
    .map((e) => `${e.version} (${fmt.count(e.assets)} ${e.assets === 1 ? 'asset' : 'assets'})`)
    .join(', ');
  tableSection(
    pdf,
    'Confidence and uncertainty',
    [
      { header: 'Confidence of the calculation', width: w * 0.3 },
      { header: 'Assets', width: w * 0.13, align: 'right' },
      { header: 'Share of assets', width: w * 0.17, align: 'right' },
      { header: 'kg CO₂e', width: w * 0.18, align: 'right' },
      { header: 'Stated uncertainty', width: w * 0.22, align: 'right' },
    ],
    view.confidence_mix.map((c) => [
      CONFIDENCE_LABELS[c.level],
      fmt.count(c.assets),
      fmt.pct(c.share_pct),
      fmt.kg(c.total_kg_co2e),
      c.uncertainty_pct === null
        ? 'not stated'
        : c.uncertainty_pct.min === c.uncertainty_pct.max
          ? `±${c.uncertainty_pct.min} %`
          : `±${c.uncertainty_pct.min}–${c.uncertainty_pct.max} %`,
    ]),
    `Intervals: ${view.uncertainty.method} Engine version${view.engine_versions.length === 1 ? '' : 's'} of the calculations: ${engines}.`,
  );
}

/**
 * The grid factors the calculations used, one entry each: source, version, vintage (valid_from),
 * licence and assets. Entries, not a five-column table: the long source names wrap to two lines
 * instead of five, which halves the pages and the drawing time for an estate in many countries.
 */
function sourcesSection(pdf: PdfWriter, view: ReportView): void {
  const sources = view.grid_factor_sources;
  if (sources.length === 0) return;
  const cited = sources.reduce((n, s) => n + s.assets, 0);
  const valid = (s: (typeof sources)[number]) =>
    s.valid_from.first === s.valid_from.last ? s.valid_from.first : `${s.valid_from.first} to ${s.valid_from.last}`;
  const entries = sources.map(
    (s) =>
      `• ${s.source}. Version: ${s.version}; valid from ${valid(s)}; licence: ${s.licence ?? 'not stated'}; ` +
      `${s.regions === 1 ? '' : `${fmt.count(s.regions)} regions, `}${fmt.count(s.assets)} ${s.assets === 1 ? 'asset' : 'assets'}.`,
  );
  const intro = `The use-phase grid factors recorded with the calculations of ${fmt.count(cited)} of the ${fmt.count(view.asset_count)} assets (calculation_factors), by source, version and licence.`;
  const introStyle = { size: 8.5, color: COLORS.muted };
  pdf.heading(
    `Grid factors used: ${fmt.count(sources.length)} ${sources.length === 1 ? 'source' : 'sources'}`,
    pdf.heightOf(intro, pdf.width, introStyle) + 4 + pdf.heightOf(entries[0]!, pdf.width, SOURCE_STYLE),
  );
  pdf.paragraph(intro, introStyle, 4);
  for (const entry of entries) {
    // An entry is not split over two pages.
    pdf.ensure(pdf.heightOf(entry, pdf.width, SOURCE_STYLE));
    pdf.paragraph(entry, SOURCE_STYLE, 2);
  }
}

const SOURCE_STYLE = { size: 7.5 };

async function summarySections(pdf: PdfWriter, view: ReportView): Promise<void> {
  await phaseSection(pdf, view);
  if (view.criteria) criteriaSection(pdf, view.criteria);
  confidenceSection(pdf, view);
  const { buckets, granularity } = view.trend;
  if (buckets.some((b) => b.total_kg_co2e > 0)) {
    const periods = buckets.map((b) => ({ label: b.label, value: b.total_kg_co2e }));
    await chartSection(
      pdf,
      `Lifecycle emissions of the assets bought each ${granularity} (kg CO₂e)`,
      periodChart(periods, pdf.width, 130),
      trendSentence(view.trend),
    );
  } else if (buckets.length > 0) {
    pdf.heading('Purchases over the period', 20);
    pdf.paragraph(trendSentence(view.trend), CAPTION);
  }
  if (view.by_category.length > 0) await rankedSection(pdf, 'By category', rankRows(view.by_category), 'categories', 'Category', false);
  if (view.by_country.length > 0) await rankedSection(pdf, 'By country of use', rankRows(view.by_country), 'countries', 'Country', false);

  if (view.ghg_inventory) inventorySection(pdf, view.ghg_inventory);

  if (view.savings) {
    const { reuse_kg_co2e: reuse, refurbishment_kg_co2e: refurbishment } = view.savings;
    pdf.heading('Avoided emissions', 70);
    pdf.keyValues([
      ['Reuse', fmt.kgCo2e(reuse)],
      ['Refurbishment', fmt.kgCo2e(refurbishment)],
      ['Total avoided', fmt.kgCo2e(reuse + refurbishment)],
      ['Basis', view.savings.basis],
    ]);
  }
}

/** GWP, ADPe and PE of the inventory side by side, by phase, with what ADPe and PE mean. */
function criteriaSection(pdf: PdfWriter, criteria: NonNullable<ReportView['criteria']>): void {
  const w = pdf.width;
  const row = (label: string, key: keyof typeof criteria.gwp) => [
    label,
    fmt.kg(criteria.gwp[key]),
    fmt.significant(criteria.adpe[key]),
    fmt.significant(criteria.pe[key]),
  ];
  tableSection(
    pdf,
    'Climate, metals and energy',
    [
      { header: 'Phase', width: w * 0.28 },
      { header: 'GWP, kg CO₂e', width: w * 0.24, align: 'right' },
      { header: 'ADPe, kg Sb eq', width: w * 0.24, align: 'right' },
      { header: 'PE, MJ', width: w * 0.24, align: 'right' },
    ],
    [...PHASES.map(({ label }, i) => row(label, CRITERION_PHASES[i]!)), row('Total', 'total')],
    'GWP: global warming, the figures above. ADPe: abiotic depletion of elements, the metals and minerals used up, in kg of antimony ' +
      "equivalent. PE: primary energy, the energy drawn from nature, in MJ. ADPe and PE are from BoaviztAPI's open factors, uncalibrated " +
      '(docs/methodology.md section 13).' +
      (criteria.assets_without_impacts > 0
        ? ` Assets calculated before ADPe and PE were, not in those columns: ${fmt.count(criteria.assets_without_impacts)}.`
        : ''),
  );
}

/** The criteria's phase keys in the order of PHASES (production, transport, use, end of life). */
const CRITERION_PHASES = ['production', 'transport', 'use', 'end_of_life'] as const;

/** The period's emissions by GHG Protocol scope and category, Scope 2 both ways, with the figures GET /v1/inventory answers. */
function inventorySection(pdf: PdfWriter, inventory: NonNullable<ReportView['ghg_inventory']>): void {
  const w = pdf.width;
  const { scope_2: scope2 } = inventory;
  tableSection(
    pdf,
    'GHG inventory',
    [
      { header: 'Scope and category', width: w * 0.46, wrap: true },
      { header: 'Assets', width: w * 0.12, align: 'right' },
      { header: 'Location-based', width: w * 0.21, align: 'right' },
      { header: 'Market-based', width: w * 0.21, align: 'right' },
    ],
    [
      ...inventory.rows.map((r) => [r.label, fmt.count(r.assets), fmt.kg(r.kg_co2e), fmt.kg(r.market_based_kg_co2e)]),
      ['Total', fmt.count(inventory.total.assets), fmt.kg(inventory.total.kg_co2e), fmt.kg(inventory.total.market_based_kg_co2e)],
    ],
    `The emissions of the period itself (kg CO₂e; GHG Protocol; allocation method ${inventory.method}; docs/inventory.md), ` +
      'not the lifetime totals above: electricity of the days each asset was held, hardware acquired, end of life of hardware disposed of.',
  );
  pdf.paragraph(
    `Scope 2 location-based ${fmt.kgCo2e(scope2.location_based_kg_co2e)}; market-based ${fmt.kgCo2e(scope2.market_based_kg_co2e)}` +
      (scope2.location_based_fallback ? ' (partly at the location-based factor: no instrument and no residual mix).' : '.'),
    CAPTION,
  );
}

async function hotspotSections(pdf: PdfWriter, view: ReportView): Promise<void> {
  await phaseSection(pdf, view);
  confidenceSection(pdf, view);
  const hotspots = view.hotspots;
  if (!hotspots) return;
  const { criterion } = hotspots;
  const figures = figuresOf(criterion);
  // GWP keeps the plain headings; another criterion is named in each.
  const by = (what: string) => (criterion.id === 'gwp' ? `Hotspots by ${what}` : `Hotspots by ${what}, ${criterion.name}`);
  pdf.heading(`Ranked by ${criterion.name} (${criterion.meaning}, ${figures.unit})`, 40);
  pdf.paragraph(
    `The hotspots below rank and total the ${criterion.name} of the assets' active calculations, as the API answered them` +
      (criterion.id === 'gwp'
        ? ' (kg CO₂e, the figures above).'
        : ` (their stored impacts.${criterion.id}, ${criterion.unit}; docs/methodology.md section 13). ` +
          (hotspots.assets_without_impacts > 0
            ? `Assets calculated before ADPe and PE were, not ranked: ${fmt.count(hotspots.assets_without_impacts)}.`
            : 'Every asset of the period has them.')) +
      ' Request another criterion with criterion gwp, adpe or pe.',
    { size: 8.5, color: COLORS.muted },
    6,
  );
  if (hotspots.categories.length > 0)
    await rankedSection(pdf, by('category'), hotspots.categories, 'categories', 'Category', true, hotspots.categories_count, figures);
  if (hotspots.models.length > 0)
    await rankedSection(pdf, by('model'), hotspots.models, 'models', 'Model', true, hotspots.models_count, figures);
  if (hotspots.components.length > 0) {
    const components = [...hotspots.components].sort((a, b) => b.value - a.value).slice(0, CHART_ROWS);
    const rows = components.map((c) => ({
      label: c.component,
      value: c.value,
      text: `${figures.format(c.value)} ${figures.short} · ${fmt.pct(c.share_pct)}`,
    }));
    await chartSection(pdf, `${by('component')} (${figures.unit} and share)`, barChart(rows, pdf.width, BAR_STEP));
  }

  if (hotspots.actions.length === 0) {
    pdf.heading('Actions and what they would save', 20);
    pdf.paragraph('No action to suggest from this period’s data.', { size: 9 });
    return;
  }
  const actions = [...hotspots.actions].sort((a, b) => b.saving - a.saving);
  const w = pdf.width;
  tableSection(
    pdf,
    'Actions and what they would save',
    [
      { header: 'Action', width: w * 0.38, wrap: true },
      { header: `Saving, ${figures.unit}`, width: w * 0.18, align: 'right' },
      { header: 'Basis', width: w * 0.44, wrap: true },
    ],
    // No total: actions for the same devices are alternatives, their savings do not add up.
    actions.map((a) => [a.action, figures.format(a.saving), a.basis]),
  );
}

export async function reportPdf(view: ReportView): Promise<Buffer> {
  const title = TITLES[view.type];
  const period = `${fmt.date(view.date_from)} – ${fmt.date(view.date_to)}`;
  const pdf = new PdfWriter({
    title: `${title}, ${view.organization_name}, ${period}`,
    subject: `${title} of lifecycle carbon emissions`,
    author: view.organization_name,
    createdAt: view.generated_at,
  });
  const { left, width } = pdf;

  if (view.sandbox) {
    pdf.notice(
      SANDBOX_REPORT,
      'Made with a test key (svc_test_) from the organisation’s sandbox: the figures are example data, not the organisation’s.',
      COLORS.warning,
      COLORS.warningFaint,
    );
  }

  const top = pdf.y;
  const dateWidth = 150;
  pdf.line(title.toUpperCase(), left, top, width - dateWidth, { size: 9, bold: true, color: COLORS.accent });
  const nameHeight = pdf.title(view.organization_name, left, top + 15, width - dateWidth - 10, {
    size: 19,
    bold: true,
    leading: 1.2,
    maxLines: 3,
  });
  pdf.line(period, left, top + 19 + nameHeight, width - dateWidth, { size: 10.5 });
  pdf.line('Generated', left + width - dateWidth, top, dateWidth, { size: 8, color: COLORS.muted, align: 'right' });
  pdf.line(fmt.dateTime(view.generated_at), left + width - dateWidth, top + 11, dateWidth, { size: 9, align: 'right' });
  pdf.y = top + 40 + nameHeight;
  pdf.rule(COLORS.muted, 0.8);
  pdf.space(8);
  pdf.line('What this report covers', left, pdf.y, width, { size: 8, bold: true, color: COLORS.muted });
  pdf.space(12);
  pdf.paragraph(view.period_semantics, { size: 8.5, color: COLORS.muted }, 10);

  if (view.empty) {
    pdf.notice(
      NO_DATA,
      `${view.organization_name} has no assets in this period (${period}), so there are no totals, breakdowns or ` +
        'charts to show. Which assets a period covers is described above; the notes below say why this one is empty.',
      COLORS.accent,
      COLORS.faint,
    );
  } else {
    pdf.figures([
      { label: 'Lifecycle emissions', value: fmt.kg(view.totals.total_kg_co2e), unit: 'kg CO₂e' },
      { label: 'Assets', value: fmt.count(view.asset_count), unit: 'in the period' },
      { label: 'Calculations', value: fmt.count(view.calculation_count), unit: 'in the period' },
    ]);
    pdf.paragraph(
      `Lifecycle emissions ${fmt.kgCo2e(view.totals.total_kg_co2e)}, ~80 % interval ${interval(view.uncertainty.total)} kg CO₂e ` +
        `(how it is formed: “Confidence and uncertainty” below).`,
      { size: 9 },
      4,
    );
    await (view.type === 'hotspot_analysis' ? hotspotSections(pdf, view) : summarySections(pdf, view));
    sourcesSection(pdf, view);
  }

  // Targets are the organisation's commitments, shown with or without data in the period.
  if (view.sbti_targets && view.sbti_targets.length > 0) {
    tableSection(
      pdf,
      'Science Based Targets (SBTi)',
      [
        { header: 'Target', width: width * 0.3, wrap: true },
        { header: 'Scope', width: width * 0.3, wrap: true },
        { header: 'Base year', width: width * 0.13, align: 'right' },
        { header: 'Target year', width: width * 0.13, align: 'right' },
        { header: 'Reduction', width: width * 0.14, align: 'right' },
      ],
      view.sbti_targets.map((t) => [t.name, t.scope, String(t.base_year), String(t.target_year), fmt.pct(t.reduction_pct)]),
    );
  }

  if (view.notes.length > 0) {
    pdf.heading('Notes', pdf.heightOf(`• ${view.notes[0]}`, pdf.width, { size: 8.5 }));
    for (const note of view.notes) pdf.paragraph(`• ${note}`, { size: 8.5 }, 3);
  }

  return pdf.finish({
    left: `${title} · ${view.organization_name} · ${period}`,
    watermark: view.sandbox ? 'TEST — SANDBOX DATA' : undefined,
  });
}
