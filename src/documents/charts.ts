import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { fitText, needsFallback, textWidth } from './fonts.ts';
import { COLORS, type Chart } from './pdf.ts';

/**
 * Charts as vector SVG: Vega-Lite specs compiled and rendered headless (renderer 'none', toSVG),
 * then placed in the PDF by svg-to-pdfkit. Text stays text in the embedded fonts: the SVG names
 * the font families 'latin' and 'cjk', which the PDF toolkit maps to its registered fonts.
 * One SVG unit is one PDF point.
 */
export interface BarDatum {
  label: string;
  value: number;
  /** The number written at the end of the bar, formatted by the caller. */
  text: string;
  color?: string;
}

const GRID = '#e4e7eb';
const LABEL_SIZE = 8;
const VALUE_SIZE = 8;

// Measure chart text with the embedded fonts: vega's fallback estimate (0.8 em a character) is
// wrong for narrow Latin and wide CJK text, and label layout (fit, truncation) depends on it.
(vega as unknown as { textMetrics: { width: (item: { fontSize?: number; fontWeight?: string | number }, text: unknown) => number } })
  .textMetrics.width = (item, text) =>
  textWidth(String(text ?? ''), item.fontSize ?? 11, item.fontWeight === 'bold' || Number(item.fontWeight) >= 600);

const baseConfig = {
  font: 'latin',
  background: 'transparent',
  view: { stroke: null },
  axis: {
    labelColor: COLORS.ink,
    labelFontSize: LABEL_SIZE,
    domainColor: COLORS.muted,
    tickColor: COLORS.muted,
    gridColor: GRID,
    title: null,
  },
};

/** Axis/text font per label: the CJK font only for labels the Latin font cannot show. */
function fontRule(labels: string[]) {
  const fallback = labels.filter(needsFallback);
  return {
    param: { name: 'fallback', value: fallback },
    axisLabelFont: { condition: { test: 'indexof(fallback, datum.value) >= 0', value: 'cjk' }, value: 'latin' },
  };
}

async function render(spec: TopLevelSpec): Promise<Chart> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    const size = /^<svg[^>]*?\swidth="([\d.]+)"\s+height="([\d.]+)"/.exec(svg);
    if (!size) throw new Error('vega produced an SVG without a size');
    return { svg, width: Number(size[1]), height: Number(size[2]) };
  } finally {
    view.finalize();
  }
}

/**
 * Horizontal bars, one per row in the given order, each labelled with its number.
 * `width` is the whole chart's width; the label column takes what the longest label needs.
 */
export function barChart(rows: BarDatum[], width: number, barStep = 18): Promise<Chart> {
  const labelWidth = Math.min(width * 0.42, Math.max(...rows.map((r) => textWidth(r.label, LABEL_SIZE))) + 8);
  // Shortened here, not by vega: vega sizes the chart by a label's full width even when it truncates it.
  rows = rows.map((r) => ({ ...r, label: fitText(r.label, labelWidth - 6, LABEL_SIZE) }));
  const textRoom = Math.max(...rows.map((r) => textWidth(r.text, VALUE_SIZE))) + 8;
  const plotWidth = width - labelWidth;
  const max = Math.max(...rows.map((r) => r.value), 0);
  // Leave room right of the longest bar for its number.
  const domainMax = max > 0 ? (max * plotWidth) / Math.max(plotWidth - textRoom, plotWidth * 0.4) : 1;
  const fonts = fontRule(rows.map((r) => r.label));
  const y = {
    field: 'label',
    type: 'nominal' as const,
    sort: null,
    axis: { ticks: false, domain: false, labelPadding: 6, labelLimit: 0, labelFont: fonts.axisLabelFont },
  };
  const x = { field: 'value', type: 'quantitative' as const, scale: { domain: [0, domainMax], nice: false }, axis: null };
  return render({
    width: plotWidth,
    height: { step: barStep },
    padding: { left: 0, right: 0, top: 2, bottom: 2 },
    autosize: { type: 'pad' },
    params: [fonts.param],
    data: { values: rows.map((r, i) => ({ ...r, key: i, color: r.color ?? COLORS.accent })) },
    layer: [
      {
        mark: { type: 'bar', cornerRadiusEnd: 1.5, height: { band: 0.72 } },
        encoding: { y, x, color: { field: 'color', type: 'nominal', scale: null } },
      },
      {
        mark: { type: 'text', align: 'left', baseline: 'middle', dx: 4, fontSize: VALUE_SIZE, color: COLORS.ink },
        encoding: { y, x, text: { field: 'text' } },
      },
    ],
    config: baseConfig,
  });
}

export interface PeriodDatum {
  /** The column's label under the axis, e.g. "Jan 25", "Q1 2025", "2025". */
  label: string;
  value: number;
}

/** Totals per month, quarter or year as columns with a value axis, in the given order. */
export function periodChart(periods: PeriodDatum[], width: number, height: number): Promise<Chart> {
  return render({
    width,
    height,
    padding: { left: 0, right: 2, top: 4, bottom: 0 },
    autosize: { type: 'fit', contains: 'padding' },
    data: { values: periods },
    mark: { type: 'bar', color: COLORS.accent, width: { band: 0.7 } },
    encoding: {
      x: {
        field: 'label',
        type: 'ordinal',
        sort: null,
        axis: { labelAngle: periods.length > 12 ? -60 : 0, labelOverlap: 'parity', ticks: false, domainColor: COLORS.muted },
      },
      y: {
        field: 'value',
        type: 'quantitative',
        axis: { tickCount: 4, format: ',.0f', domain: false, ticks: false, grid: true, labelPadding: 4 },
      },
    },
    config: baseConfig,
  });
}
