import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { visualRuns } from './bidi.ts';
import { fitText, textRuns, textWidth } from './fonts.ts';
import * as fmt from './format.ts';
import { COLORS, type Chart, type ChartLabel } from './pdf.ts';

/**
 * Charts as vector SVG: Vega-Lite specs compiled and rendered headless (renderer 'none', toSVG),
 * then placed in the PDF by svg-to-pdfkit. Text stays text in the embedded fonts: Latin text in the
 * SVG (font family 'latin'), other scripts drawn by the PDF toolkit over it (liftLabels).
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
(
  vega as unknown as { textMetrics: { width: (item: { fontSize?: number; fontWeight?: string | number }, text: unknown) => number } }
).textMetrics.width = (item, text) =>
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

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

const TRANSLATE = /^\s*translate\(([-\d.e]+),\s*([-\d.e]+)\)\s*$/;

/**
 * Takes out of the SVG the texts that need more than Noto Sans (another script, right to left): svg-to-
 * pdfkit draws a text in one font, shapes it word by word and leaves out mark offsets (the dots of
 * Arabic letters). The PDF toolkit draws them as its own lines instead, at the same place. Only texts
 * under plain translations are taken (rotated month labels are Latin).
 */
function liftLabels(svg: string): { svg: string; labels: ChartLabel[] } {
  const labels: ChartLabel[] = [];
  // Each open <g>: its translation, or null when it transforms otherwise.
  const groups: ([number, number] | null)[] = [];
  const kept = svg.replace(
    /<g\b([^>]*?)(\/?)>|<\/g>|<text\b([^>]*)>([^<]*)<\/text>/g,
    (tag, gAttributes?: string, selfClosing?: string, attributes?: string, content?: string) => {
      if (tag === '</g>') {
        groups.pop();
        return tag;
      }
      if (gAttributes !== undefined) {
        if (selfClosing) return tag;
        const transform = /\stransform="([^"]*)"/.exec(gAttributes)?.[1];
        const translate = transform === undefined ? ['0', '0'] : TRANSLATE.exec(transform)?.slice(1);
        groups.push(translate ? [Number(translate[0]), Number(translate[1])] : null);
        return tag;
      }
      const text = decode(content ?? '');
      const at = TRANSLATE.exec(/\stransform="([^"]*)"/.exec(attributes ?? '')?.[1] ?? '');
      const size = Number(/font-size="([\d.]+)/.exec(attributes ?? '')?.[1] ?? 11);
      const bold = /font-weight="(bold|[6-9]00)"/.test(attributes ?? '');
      const runs = textRuns(text, bold);
      const latinOnly = runs.every((run) => run.font.startsWith('latin')) && !visualRuns(text, size, bold).some((run) => run.whole);
      if (latinOnly || !at || groups.includes(null)) return tag;
      let [x, y] = [Number(at[1]), Number(at[2])];
      for (const group of groups) [x, y] = [x + group![0], y + group![1]];
      const anchor = /text-anchor="(start|middle|end)"/.exec(attributes ?? '')?.[1] as ChartLabel['anchor'] | undefined;
      labels.push({
        text,
        x,
        y,
        size,
        bold,
        anchor: anchor ?? 'start',
        color: /\sfill="(#[0-9a-f]+)"/i.exec(attributes ?? '')?.[1] ?? COLORS.ink,
      });
      return '';
    },
  );
  return { svg: kept, labels };
}

async function render(spec: TopLevelSpec, figures: string): Promise<Chart> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    const size = /^<svg[^>]*?\swidth="([\d.]+)"\s+height="([\d.]+)"/.exec(svg);
    if (!size) throw new Error('vega produced an SVG without a size');
    return { ...liftLabels(svg), width: Number(size[1]), height: Number(size[2]), figures };
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
  const y = {
    field: 'label',
    type: 'nominal' as const,
    sort: null,
    axis: { ticks: false, domain: false, labelPadding: 6, labelLimit: 0 },
  };
  const x = { field: 'value', type: 'quantitative' as const, scale: { domain: [0, domainMax], nice: false }, axis: null };
  return render(
    {
      width: plotWidth,
      height: { step: barStep },
      padding: { left: 0, right: 0, top: 2, bottom: 2 },
      autosize: { type: 'pad' },
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
    },
    rows.map((r) => `${r.label} ${r.text}`).join('; '),
  );
}

export interface PeriodDatum {
  /** The column's label under the axis, e.g. "Jan 25", "Q1 2025", "2025". */
  label: string;
  value: number;
}

/** Totals per month, quarter or year as columns with a value axis, in the given order. */
export function periodChart(periods: PeriodDatum[], width: number, height: number): Promise<Chart> {
  return render(
    {
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
    },
    periods.map((m) => `${m.label} ${fmt.kg(m.value)} kg`).join('; '),
  );
}
