import { barChart, monthChart, type BarDatum, type Chart } from './charts.ts';
import * as fmt from './format.ts';
import { CHART_ROWS } from './limits.ts';
import { COLORS, PdfWriter, type Column } from './pdf.ts';
import { phaseChart } from './phases.ts';
import type { ReportBreakdownRow, ReportView } from './views.ts';

const SANDBOX_REPORT = 'TEST — sandbox data, not a real report';
const NO_DATA = 'No data for this period';

const TITLES: Record<ReportView['type'], string> = {
  sustainability_summary: 'Sustainability summary',
  hotspot_analysis: 'Hotspot analysis',
};

const BAR_STEP = 16;

const bars = (rows: ReportBreakdownRow[]): BarDatum[] =>
  rows.map((r) => ({ label: r.label, value: r.total_kg_co2e, text: `${fmt.kg(r.total_kg_co2e)} kg · ${fmt.pct(r.share_pct)}` }));

function breakdownTable(pdf: PdfWriter, what: string, rows: ReportBreakdownRow[], ranked = false): void {
  const w = pdf.width;
  const columns: Column[] = [
    ...(ranked ? [{ header: '#', width: w * 0.06, align: 'right' as const }] : []),
    { header: what, width: w * (ranked ? 0.44 : 0.5) },
    { header: 'Assets', width: w * 0.14, align: 'right' },
    { header: 'kg CO₂e', width: w * 0.2, align: 'right' },
    { header: 'Share', width: w * 0.16, align: 'right' },
  ];
  pdf.table(
    columns,
    rows.map((r, i) => [...(ranked ? [String(i + 1)] : []), r.label, fmt.count(r.assets), fmt.kg(r.total_kg_co2e), fmt.pct(r.share_pct)]),
  );
}

/** A heading kept on one page with its chart (a table under it breaks pages by itself). */
async function chartSection(pdf: PdfWriter, heading: string, chart: Promise<Chart>): Promise<void> {
  const drawn = await chart;
  pdf.heading(heading, drawn.height);
  pdf.chart(drawn, heading);
}

/**
 * A ranking chart, a note when the table under it has more rows than the chart, then that table.
 * The chart has up to CHART_ROWS bars, fewer (not under 6) when that keeps it on the page in progress
 * instead of leaving a third of the page empty: the table lists every row anyway.
 */
async function rankedSection(pdf: PdfWriter, heading: string, rows: ReportBreakdownRow[], what: string, column: string, ranked: boolean): Promise<void> {
  const fit = Math.floor((pdf.bottom - pdf.y - 60) / BAR_STEP);
  const wanted = Math.min(rows.length, CHART_ROWS);
  const shown = fit >= 6 && fit < wanted ? fit : wanted;
  await chartSection(pdf, heading, barChart(bars(rows.slice(0, shown)), pdf.width, BAR_STEP));
  if (rows.length > shown) {
    pdf.paragraph(`The chart shows the ${shown} largest ${what}; the table below has the rest.`, { size: 8, color: COLORS.muted });
  }
  breakdownTable(pdf, column, rows, ranked);
}

/** Average of the second half of the months against the first half: a trend that one odd month cannot swing. */
function trendSentence(months: ReportView['by_month']): string {
  if (months.length < 2) return 'One month of data: not enough for a trend.';
  const half = Math.floor(months.length / 2);
  const first = months.slice(0, half);
  const second = months.slice(months.length - half);
  const mean = (list: typeof months) => list.reduce((a, m) => a + m.total_kg_co2e, 0) / list.length;
  const span = (list: typeof months) =>
    list.length === 1 ? fmt.month(list[0]!.month) : `${fmt.month(list[0]!.month)} to ${fmt.month(list[list.length - 1]!.month)}`;
  const [a, b] = [mean(first), mean(second)];
  if (a === 0) return `Trend: the assets bought in an average month of ${span(second)} carry ${fmt.kg(b)} kg CO₂e over their lives; none were bought in ${span(first)}.`;
  const change = ((b - a) / a) * 100;
  const direction = Math.abs(change) < 0.05 ? 'the same as' : change < 0 ? `${fmt.pct(-change)} lower than` : `${fmt.pct(change)} higher than`;
  return `Trend: the assets bought in an average month of ${span(second)} carry ${fmt.kg(b)} kg CO₂e over their lives, ${direction} those of ${span(first)} (${fmt.kg(a)} kg CO₂e).`;
}

async function summarySections(pdf: PdfWriter, view: ReportView): Promise<void> {
  await chartSection(pdf, 'Emissions by lifecycle phase (kg CO₂e and share)', phaseChart(view.totals, view.totals.total_kg_co2e, pdf.width));
  if (view.by_month.length > 0) {
    const months = view.by_month.map((m) => ({ month: m.month, value: m.total_kg_co2e }));
    await chartSection(pdf, 'Lifecycle emissions of the assets bought each month (kg CO₂e)', monthChart(months, pdf.width, 130));
    pdf.paragraph(trendSentence(view.by_month), { size: 8.5 });
  }
  if (view.by_category.length > 0) await rankedSection(pdf, 'By category', view.by_category, 'categories', 'Category', false);
  if (view.by_country.length > 0) await rankedSection(pdf, 'By country of use', view.by_country, 'countries', 'Country', false);

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

async function hotspotSections(pdf: PdfWriter, view: ReportView): Promise<void> {
  await chartSection(pdf, 'Emissions by lifecycle phase (kg CO₂e and share)', phaseChart(view.totals, view.totals.total_kg_co2e, pdf.width));
  const hotspots = view.hotspots;
  if (!hotspots) return;
  if (hotspots.categories.length > 0) await rankedSection(pdf, 'Hotspots by category', hotspots.categories, 'categories', 'Category', true);
  if (hotspots.models.length > 0) await rankedSection(pdf, 'Hotspots by model', hotspots.models, 'models', 'Model', true);
  if (hotspots.components.length > 0) {
    const components = [...hotspots.components].sort((a, b) => b.kg_co2e - a.kg_co2e).slice(0, CHART_ROWS);
    const rows = components.map((c) => ({ label: c.component, value: c.kg_co2e, text: `${fmt.kg(c.kg_co2e)} kg · ${fmt.pct(c.share_pct)}` }));
    await chartSection(pdf, 'Hotspots by component (kg CO₂e and share)', barChart(rows, pdf.width, BAR_STEP));
  }

  pdf.heading('Actions and what they would save', 60);
  if (hotspots.actions.length === 0) {
    pdf.paragraph('No action to suggest from this period’s data.', { size: 9 });
    return;
  }
  const actions = [...hotspots.actions].sort((a, b) => b.saving_kg_co2e - a.saving_kg_co2e);
  const w = pdf.width;
  pdf.table(
    [
      { header: 'Action', width: w * 0.38, wrap: true },
      { header: 'Saving, kg CO₂e', width: w * 0.18, align: 'right' },
      { header: 'Basis', width: w * 0.44, wrap: true },
    ],
    // No total: actions for the same devices are alternatives, their savings do not add up.
    actions.map((a) => [a.action, fmt.kg(a.saving_kg_co2e), a.basis]),
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
  const nameHeight = pdf.title(view.organization_name, left, top + 15, width - dateWidth - 10, { size: 19, bold: true, leading: 1.2, maxLines: 3 });
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
    await (view.type === 'hotspot_analysis' ? hotspotSections(pdf, view) : summarySections(pdf, view));
  }

  // Targets are the organisation's commitments, shown with or without data in the period.
  if (view.sbti_targets && view.sbti_targets.length > 0) {
    pdf.heading('Science Based Targets (SBTi)', 60);
    pdf.table(
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
    pdf.heading('Notes', 40);
    for (const note of view.notes) pdf.paragraph(`• ${note}`, { size: 8.5 }, 3);
  }

  return pdf.finish({
    left: `${title} · ${view.organization_name} · ${period}`,
    watermark: view.sandbox ? 'TEST — SANDBOX DATA' : undefined,
  });
}
