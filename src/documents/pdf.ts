import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { visualRuns } from './bidi.ts';
import { fitText, registerFont, textWidth } from './fonts.ts';

/**
 * The PDF toolkit both layouts use: an A4 page with a cursor, text with per-run font fallback, right-
 * to-left runs in visual order and its own line breaking (so heights are known before drawing), tables
 * that continue on the next page under a repeated header, vector charts, and a footer written on every
 * page at the end.
 *
 * Documents are tagged PDFs: every method puts what it draws in a structure element (heading H1/H2,
 * paragraph P, Table/TR/TH/TD, Figure with alternative text, Link) in drawing order, which is the
 * reading order, or marks it as an artifact (rules, boxes, the footer, the watermark). Text drawn with
 * `line` or `textAt` outside another element is a paragraph of its own; anything drawn on `doc`
 * directly belongs in `decoration`.
 */
const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 48;
const FOOTER_ROOM = 26;
/** What heading() takes: 6 points above, 18 for the line, 4 under its rule. */
export const HEADING_HEIGHT = 28;

/** A chart as vector SVG (src/documents/charts.ts), one unit a PDF point. */
export interface Chart {
  svg: string;
  width: number;
  height: number;
  /** The plotted figures as text ("Production 214.6 kg · 74.5 %; ..."), for the chart's alternative text. */
  figures: string;
  /** Texts the PDF toolkit draws over the SVG (see liftLabels), in SVG units. */
  labels: ChartLabel[];
}

export interface ChartLabel {
  text: string;
  /** The anchor point on the baseline. */
  x: number;
  y: number;
  anchor: 'start' | 'middle' | 'end';
  size: number;
  bold: boolean;
  color: string;
}

export const COLORS = {
  ink: '#1f2933',
  muted: '#616e7c',
  rule: '#d9dee3',
  faint: '#f2f4f6',
  accent: '#2a6f97',
  warning: '#b42318',
  warningFaint: '#fdecea',
};

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: string;
  align?: 'left' | 'right' | 'center';
  /** Line height as a multiple of the font size. */
  leading?: number;
  /** Lines at most (textAt): the last one ends with an ellipsis when the text is longer. */
  maxLines?: number;
}

export interface DocumentMeta {
  title: string;
  subject: string;
  author: string;
  /** The document's own date (issued_at, generated_at): also its PDF CreationDate, so the same view gives the same bytes. */
  createdAt: string;
}

export interface Column {
  header: string;
  width: number;
  align?: 'left' | 'right';
  /** Wrap long text in this column instead of shortening it with an ellipsis. */
  wrap?: boolean;
}

// One token per CJK character (those scripts break between any two characters), else a word and its trailing spaces.
const TOKENS =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]|[^\s\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]+\s*|\s+/gu;

export class PdfWriter {
  readonly doc: PDFKit.PDFDocument;
  readonly left = MARGIN;
  readonly width = A4.width - 2 * MARGIN;
  readonly top = MARGIN;
  readonly bottom = A4.height - MARGIN - FOOTER_ROOM;
  /** The cursor: where the next block starts. */
  y = MARGIN;
  private readonly bytes: Promise<Buffer>;
  private readonly registered = new Set<string>();
  private readonly root: PDFKit.PDFStructureElement;
  /** Where new structure elements go. */
  private parent: PDFKit.PDFStructureElement;
  /** Inside marked content (an element's content or an artifact): what is drawn belongs to it. */
  private marked = false;

  constructor(meta: DocumentMeta) {
    const created = new Date(meta.createdAt);
    const date = Number.isNaN(created.getTime()) ? new Date(0) : created;
    this.doc = new PDFDocument({
      size: 'A4',
      margin: 0,
      bufferPages: true,
      // Tagged (structure tree, MarkInfo) needs PDF 1.4 at least; pdfkit writes 1.3 by default.
      pdfVersion: '1.7',
      tagged: true,
      lang: 'en',
      displayTitle: true,
      // pdfkit derives the file /ID from the info dictionary: fixed info, fixed bytes.
      info: {
        Title: meta.title,
        Subject: meta.subject,
        Author: meta.author,
        Creator: 'Lifecycle Carbon Footprint Service',
        Producer: 'Lifecycle Carbon Footprint Service (pdfkit)',
        CreationDate: date,
        ModDate: date,
      },
    });
    const chunks: Buffer[] = [];
    this.doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    this.bytes = new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve(Buffer.concat(chunks)));
      this.doc.on('error', reject);
    });
    this.root = this.doc.struct('Document');
    this.doc.addStructure(this.root);
    this.parent = this.root;
  }

  get right(): number {
    return this.left + this.width;
  }

  /** Starts a new page when the next `height` points do not fit on this one. */
  ensure(height: number): void {
    if (this.y + height > this.bottom && this.y > this.top) this.newPage();
  }

  /** A new page; marked content open at the break (a paragraph running on) continues on it. */
  newPage(): void {
    this.doc.continueOnNewPage({ size: 'A4', margin: 0 });
    this.y = this.top;
  }

  /** Draws the content of one structure element (P, H1, TD, Figure...) under the current parent. */
  element(type: string, draw: () => void, options: { alt?: string; bbox?: number[] } = {}): void {
    if (this.marked) return draw();
    const element = this.doc.struct(type, options as { alt?: string });
    this.parent.add(element);
    element.add(() => this.drawMarked(draw));
    element.end();
  }

  private drawMarked(draw: () => void): void {
    this.marked = true;
    try {
      draw();
    } finally {
      this.marked = false;
    }
  }

  /** A structure element whose children are elements (Table, TR, Link). */
  group(type: string, build: () => void): void {
    const element = this.doc.struct(type);
    this.parent.add(element);
    const outer = this.parent;
    this.parent = element;
    try {
      build();
    } finally {
      this.parent = outer;
      element.end();
    }
  }

  /** Drawing that is not content (rules, boxes, page furniture): an artifact that assistive technology skips. */
  decoration(draw: () => void, type: 'Layout' | 'Pagination' = 'Layout'): void {
    if (this.marked) return draw();
    this.doc.markContent('Artifact', { type });
    try {
      this.drawMarked(draw);
    } finally {
      this.doc.endMarkedContent();
    }
  }

  /** A link over a box: a Link element holding what `draw` draws there and the link annotation. */
  link(url: string, x: number, top: number, width: number, height: number, draw: () => void): void {
    this.group('Link', () => {
      draw();
      this.doc.link(x, top, width, height, url, { structParent: this.parent } as PDFKit.Mixins.AnnotationOption);
    });
  }

  /**
   * Draws text in a Span whose ActualText is `actual`. pdfkit draws text as `q cm BT … ET Q`; poppler
   * places an ActualText span where its end (EMC) is in the coordinates current there, so the span
   * opens and closes inside the q … Q, in the glyphs' coordinates.
   */
  private withActualText(actual: string, draw: () => void): void {
    const doc = this.doc;
    const { save, restore } = doc;
    let depth = 0;
    doc.save = () => {
      save.call(doc);
      if (depth++ === 0) doc.markContent('Span', { actual });
      return doc;
    };
    doc.restore = () => {
      if (--depth === 0) doc.endMarkedContent();
      return restore.call(doc);
    };
    try {
      draw();
    } finally {
      doc.save = save;
      doc.restore = restore;
    }
  }

  private font(name: string): string {
    if (!this.registered.has(name)) {
      registerFont(this.doc, name);
      this.registered.add(name);
    }
    return name;
  }

  space(height: number): void {
    this.y += height;
  }

  /** Splits text into lines that fit the width. */
  wrap(text: string, width: number, style: TextStyle = {}): string[] {
    const size = style.size ?? 10;
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      let line = '';
      for (const token of paragraph.match(TOKENS) ?? ['']) {
        if (textWidth((line + token).trimEnd(), size, style.bold) <= width) {
          line += token;
          continue;
        }
        if (line.trim()) lines.push(line.trimEnd());
        line = token.trimStart();
        // A token wider than the line (a long URL) breaks after a '?', '&', '/', '=', '-' or '.' in the
        // second half of what fits (in that order of preference), else between characters.
        while (textWidth(line.trimEnd(), size, style.bold) > width) {
          let head = fitText(line, width, size, style.bold).slice(0, -1) || [...line][0]!;
          const cut = ['?', '&', '/', '=', '-', '.'].map((p) => head.lastIndexOf(p)).find((i) => i > head.length / 2);
          if (cut !== undefined) head = head.slice(0, cut + 1);
          lines.push(head);
          line = line.slice(head.length);
        }
      }
      lines.push(line.trimEnd());
    }
    return lines;
  }

  lineHeight(style: TextStyle = {}): number {
    return (style.size ?? 10) * (style.leading ?? 1.35);
  }

  /** How far below the top of a line() its baseline lies: to set text of another size on the same baseline. */
  baselineOf(style: TextStyle = {}): number {
    return (style.size ?? 10) * (0.95 + ((style.leading ?? 1.35) - 1.35) / 2);
  }

  heightOf(text: string, width: number, style: TextStyle = {}): number {
    return this.wrap(text, width, style).length * this.lineHeight(style);
  }

  /**
   * Draws one line with its top at `top`, each run in the font that has its glyphs, right-to-left runs
   * in visual order. A run drawn as U+FFFD (no font has its characters) carries the original as its
   * actual text, so copying and extraction give the original.
   */
  line(text: string, x: number, top: number, width: number, style: TextStyle = {}): void {
    const size = style.size ?? 10;
    const fitted = fitText(text, width, size, style.bold);
    const runs = visualRuns(fitted, size, style.bold);
    const used = runs.reduce((sum, run) => sum + run.width, 0);
    let cx = style.align === 'right' ? x + width - used : style.align === 'center' ? x + (width - used) / 2 : x;
    // A shared baseline: each font's own ascender would put Latin and CJK runs at different heights.
    const baseline = top + this.baselineOf(style);
    this.element('P', () => {
      this.doc.fillColor(style.color ?? COLORS.ink);
      for (const run of runs) {
        // Spaces between runs are left as gaps: poppler would attach a drawn one to the right-to-left word next to it.
        if (!run.text.trim()) {
          cx += run.width;
          continue;
        }
        const draw = () =>
          this.doc
            .font(this.font(run.font))
            .fontSize(size)
            .text(run.text, cx, baseline, { lineBreak: false, baseline: 'alphabetic', features: run.whole ? [] : undefined });
        if (run.actual === undefined) draw();
        else this.withActualText(run.actual, draw);
        cx += run.width;
      }
    });
  }

  /** Draws wrapped text in a box as one paragraph and returns its height; does not move the cursor. */
  textAt(text: string, x: number, top: number, width: number, style: TextStyle = {}, type = 'P'): number {
    let lines = this.wrap(text, width, style);
    if (style.maxLines && lines.length > style.maxLines) {
      const last = fitText(lines.slice(style.maxLines - 1).join(' '), width, style.size ?? 10, style.bold);
      lines = [...lines.slice(0, style.maxLines - 1), last];
    }
    const step = this.lineHeight(style);
    this.element(type, () => lines.forEach((line, i) => this.line(line, x, top + i * step, width, style)));
    return lines.length * step;
  }

  /** The document's title (H1): wrapped text in a box, like `textAt`. */
  title(text: string, x: number, top: number, width: number, style: TextStyle = {}): number {
    return this.textAt(text, x, top, width, style, 'H1');
  }

  /** Wrapped text at the cursor, across the full width, as one paragraph; moves the cursor below it. */
  paragraph(text: string, style: TextStyle = {}, after = 6): void {
    const step = this.lineHeight(style);
    this.element('P', () => {
      for (const line of this.wrap(text, this.width, style)) {
        this.ensure(step);
        this.line(line, this.left, this.y, this.width, style);
        this.y += step;
      }
    });
    this.y += after;
  }

  /** A section heading (H2) kept together with at least `keep` points of what follows. */
  heading(text: string, keep = 80): void {
    // The heading takes HEADING_HEIGHT (6 above it, 18 for the line, 4 under the rule): all of it plus `keep` must fit.
    this.ensure(HEADING_HEIGHT + keep);
    if (this.y > this.top) this.y += 6;
    this.element('H2', () => this.line(text, this.left, this.y, this.width, { size: 12, bold: true, color: COLORS.accent }));
    this.y += 18;
    this.decoration(() =>
      this.doc
        .moveTo(this.left, this.y - 3)
        .lineTo(this.right, this.y - 3)
        .lineWidth(0.6)
        .strokeColor(COLORS.rule)
        .stroke(),
    );
    this.y += 4;
  }

  /** Label and value pairs in two columns (a table whose row headers are the labels); both wrap. */
  keyValues(rows: [string, string][], x = this.left, width = this.width, labelWidth = 130, size = 9): void {
    const labelStyle = { size, color: COLORS.muted };
    this.group('Table', () => {
      for (const [label, value] of rows) {
        const height = this.keyValueHeight(label, value, width, labelWidth, size);
        this.ensure(height);
        this.group('TR', () => {
          this.textAt(label, x, this.y, labelWidth - 8, labelStyle, 'TH');
          this.textAt(value, x + labelWidth, this.y, width - labelWidth, { size }, 'TD');
        });
        this.y += height + 2;
      }
    });
  }

  /** The height keyValues gives the rows, spacing included: to place them before drawing. */
  keyValuesHeight(rows: [string, string][], width = this.width, labelWidth = 130, size = 9): number {
    return rows.reduce((sum, [label, value]) => sum + this.keyValueHeight(label, value, width, labelWidth, size) + 2, 0);
  }

  private keyValueHeight(label: string, value: string, width: number, labelWidth: number, size: number): number {
    return Math.max(this.heightOf(value, width - labelWidth, { size }), this.heightOf(label, labelWidth - 8, { size }));
  }

  /** A table whose header repeats on every page it runs onto (the repeats are artifacts). */
  table(columns: Column[], rows: string[][], size = 8.5): void {
    const pad = 4;
    const step = this.lineHeight({ size });
    const header = () => {
      let x = this.left;
      for (const column of columns) {
        const cellX = x;
        this.element('TH', () =>
          this.line(column.header, cellX + pad, this.y, column.width - 2 * pad, {
            size,
            bold: true,
            color: COLORS.muted,
            align: column.align,
          }),
        );
        x += column.width;
      }
      this.y += step + 2;
      this.rule(COLORS.muted, 0.6);
    };
    this.group('Table', () => {
      // The header starts a page rather than stand above fewer than three of its rows.
      this.ensure(step + 2 + Math.min(rows.length, 3) * (step + 4));
      this.group('TR', header);
      for (const row of rows) {
        const cells = columns.map((column, i) => {
          const text = row[i] ?? '';
          return column.wrap ? this.wrap(text, column.width - 2 * pad, { size }) : [text];
        });
        const height = Math.max(...cells.map((lines) => lines.length)) * step + 4;
        if (this.y + height > this.bottom) {
          this.newPage();
          this.decoration(header, 'Pagination');
        }
        this.group('TR', () => {
          let x = this.left;
          columns.forEach((column, i) => {
            const cellX = x;
            this.element('TD', () =>
              (cells[i] ?? []).forEach((line, n) =>
                this.line(line, cellX + pad, this.y + 2 + n * step, column.width - 2 * pad, { size, align: column.align }),
              ),
            );
            x += column.width;
          });
        });
        this.y += height;
        this.rule(COLORS.rule, 0.4);
      }
    });
    this.y += 6;
  }

  rule(color = COLORS.rule, lineWidth = 0.5): void {
    this.decoration(() => this.doc.moveTo(this.left, this.y).lineTo(this.right, this.y).lineWidth(lineWidth).strokeColor(color).stroke());
  }

  /** Places an SVG (a QR code) as vectors, a Figure with its alternative text. */
  svg(svg: string, x: number, top: number, width: number, height: number, alt: string): void {
    this.element('Figure', () => this.drawSvg(svg, x, top, width, height), { alt, bbox: [x, top, x + width, top + height] });
  }

  private drawSvg(svg: string, x: number, top: number, width: number, height: number): void {
    SVGtoPDF(this.doc as never, svg, x, top, {
      width,
      height,
      assumePt: true,
      // Text left in a chart's SVG is Latin (charts.ts).
      fontCallback: (_family, bold) => this.font(bold ? 'latin-bold' : 'latin'),
      // Our SVGs are generated by pinned libraries: anything svg-to-pdfkit cannot draw is a bug to see.
      warningCallback: (warning) => {
        throw new Error(`SVG not drawable: ${warning}`);
      },
    });
  }

  /**
   * A chart at the cursor, scaled down if it is wider than the page. Its alternative text is `alt`
   * (what the chart shows) followed by the figures it plots.
   */
  chart(chart: Chart, alt: string): void {
    const scale = Math.min(1, this.width / chart.width);
    this.ensure(chart.height * scale);
    const [x, top] = [this.left, this.y];
    this.element(
      'Figure',
      () => {
        this.drawSvg(chart.svg, x, top, chart.width * scale, chart.height * scale);
        for (const label of chart.labels) {
          const size = label.size * scale;
          const width = textWidth(label.text, size, label.bold) + 1;
          const left = x + label.x * scale - (label.anchor === 'end' ? width : label.anchor === 'middle' ? width / 2 : 0);
          // line() puts the baseline 0.95 em below the top it is given.
          this.line(label.text, left, top + label.y * scale - 0.95 * size, width, {
            size,
            bold: label.bold,
            color: label.color,
            align: label.anchor === 'end' ? 'right' : 'left',
          });
        }
      },
      { alt: `${alt}: ${chart.figures}.`, bbox: [x, top, x + chart.width * scale, top + chart.height * scale] },
    );
    this.y += chart.height * scale + 4;
  }

  /** Key figures side by side, each a paragraph: a label, a large number, a unit. */
  figures(items: { label: string; value: string; unit: string }[]): void {
    const gap = 10;
    const width = (this.width - gap * (items.length - 1)) / items.length;
    const height = 62;
    this.ensure(height);
    items.forEach((item, i) => {
      const x = this.left + i * (width + gap);
      this.decoration(() => this.doc.rect(x, this.y, width, height).fill(COLORS.faint));
      this.element('P', () => {
        this.line(item.label, x + 10, this.y + 8, width - 20, { size: 8, color: COLORS.muted });
        this.line(item.value, x + 10, this.y + 21, width - 20, { size: 17, bold: true, color: COLORS.accent, leading: 1.1 });
        this.line(item.unit, x + 10, this.y + 43, width - 20, { size: 8, color: COLORS.muted });
      });
    });
    this.y += height + 8;
  }

  /** A boxed notice: a bold title line and an explanation. */
  notice(title: string, body: string, color: string, fill: string): void {
    const pad = 9;
    const inner = this.width - 2 * pad;
    const titleStyle = { size: 10.5, bold: true, color };
    const bodyStyle = { size: 8.5, color: COLORS.ink };
    const height = this.heightOf(title, inner, titleStyle) + this.heightOf(body, inner, bodyStyle) + 2 * pad;
    this.ensure(height);
    this.decoration(() => {
      this.doc.rect(this.left, this.y, this.width, height).fill(fill);
      this.doc.rect(this.left, this.y, this.width, height).lineWidth(1).strokeColor(color).stroke();
    });
    const titleHeight = this.textAt(title, this.left + pad, this.y + pad, inner, titleStyle);
    this.textAt(body, this.left + pad, this.y + pad + titleHeight, inner, bodyStyle);
    this.y += height + 10;
  }

  /** Writes footer (and watermark) on every page as artifacts, then ends the document. */
  finish(footer: { left: string; watermark?: string }): Promise<Buffer> {
    const range = this.doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      this.doc.switchToPage(i);
      this.decoration(() => {
        if (footer.watermark) this.watermark(footer.watermark);
        const top = A4.height - MARGIN - 8;
        this.doc
          .moveTo(this.left, top - 6)
          .lineTo(this.right, top - 6)
          .lineWidth(0.4)
          .strokeColor(COLORS.rule)
          .stroke();
        this.line(footer.left, this.left, top, this.width - 80, { size: 7.5, color: COLORS.muted });
        this.line(`Page ${i + 1} of ${range.count}`, this.right - 80, top, 80, { size: 7.5, color: COLORS.muted, align: 'right' });
      }, 'Pagination');
    }
    this.root.end();
    this.doc.end();
    return this.bytes;
  }

  private watermark(text: string): void {
    const size = 40;
    const width = textWidth(text, size, true);
    this.doc.save();
    this.doc.rotate(-40, { origin: [A4.width / 2, A4.height / 2] });
    this.doc.fillOpacity(0.09);
    this.line(text, (A4.width - width) / 2, A4.height / 2 - size / 2, width + 1, { size, bold: true, color: COLORS.warning });
    this.doc.restore();
  }
}
