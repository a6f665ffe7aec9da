import { escapeHtml } from '../rest/html.ts';
import type { ReportBreakdownRow, ReportRankRow } from '../documents/views.ts';
import type { DashboardData } from './data.ts';

// Server-rendered: charts are inline SVG drawn here (no script, no chart library), each with a table beside it as its text.

/** The dashboard's rules, added to the console's one style sheet (admitted by its hash). */
export const DASHBOARD_STYLE = `
.dash section{margin:1.5rem 0}.dash nav a,.dash nav button{margin-right:1rem}
.figures{display:flex;flex-wrap:wrap;gap:1rem;padding:0;list-style:none}.figures li{flex:1 1 12rem;border:1px solid #d5e0da;padding:.6rem}
.figures strong{display:block;font-size:1.3rem}
.chart{width:100%;height:auto;max-height:16rem}.mix{width:100%;height:1.5rem}.swatch{width:.8rem;height:.8rem;margin-right:.3rem}.bar{fill:#2f7d4f}.bar-alt{fill:#9cc9ad}.axis{stroke:#8a8a8a}.chart text{font-size:11px;fill:#1b2b23}
.wide{overflow-x:auto}.wide:focus,a:focus,button:focus{outline:3px solid #1a5fb4;outline-offset:2px}
caption{text-align:left;font-weight:600;padding:.3rem 0}td.num,th.num{text-align:right;white-space:nowrap}
.share{width:6rem;height:.8rem;margin-right:.3rem}details{margin:.5rem 0}summary{cursor:pointer}.share rect{fill:#2f7d4f}.share .rest{fill:#e3ece6}
.c-manufacturer_verified{fill:#1f5f3a}.c-estimated_high{fill:#2f7d4f}.c-estimated_medium{fill:#5fa77a}.c-estimated_low{fill:#a8cdb6}.mix rect{stroke:#fff;stroke-width:.3}
.failed,.error-text{color:#a12020}.error-text{overflow-wrap:anywhere}.nw{white-space:nowrap}
@media (max-width:40rem){body{margin:1rem auto}td,th{padding:.3rem}.share{width:3rem}.dash meter{width:4rem}.chart text{font-size:20px}}
`;

const kg = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const count = (n: number) => n.toLocaleString('en-US');
/** A percentage that never wraps between its number and its sign. */
const pct = (n: number) => `${n}&nbsp;%`;
const day = (d: Date) => `<span class="nw">${d.toISOString().slice(0, 10)}</span>`;
/** Date and time each kept whole, so a phone's narrow column breaks between them only. */
const time = (d: Date) => `${day(d)} <span class="nw">${d.toISOString().slice(11, 16)} UTC</span>`;
const CONFIDENCE_NAMES: Record<string, string> = {
  manufacturer_verified: 'Manufacturer verified',
  estimated_high: 'Estimated, high confidence',
  estimated_medium: 'Estimated, medium confidence',
  estimated_low: 'Estimated, low confidence',
};

/** A small bar of `pct` percent, decorative: the cell beside it states the share. */
const shareBar = (pct: number) =>
  `<svg class="share" viewBox="0 0 100 10" aria-hidden="true" focusable="false"><rect class="rest" width="100" height="10"></rect><rect width="${Math.max(0, Math.min(100, pct))}" height="10"></rect></svg>`;

function table(caption: string, head: string[], rows: string[][], numeric: ReadonlySet<number> = new Set(), id?: string): string {
  const th = head.map((h, i) => `<th scope="col"${numeric.has(i) ? ' class="num"' : ''}>${h}</th>`).join('');
  const body = rows.length
    ? rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`).join('\n')
    : `<tr><td colspan="${head.length}">None yet.</td></tr>`;
  // Focusable so a keyboard user can scroll a table wider than a phone.
  return `<div class="wide" tabindex="0"${id ? ` id="${id}"` : ''}><table><caption>${caption}</caption><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** Breakdown rows, or the hotspot analysis' GWP rows (the dashboard's is by GWP: `value` in kg CO2e). */
function ranked(title: string, rows: (ReportBreakdownRow | ReportRankRow)[], id: string): string {
  return `<section aria-labelledby="${id}-h"><h3 id="${id}-h">${title}</h3>${table(
    "kg CO2e over the devices' whole lives, and share of the inventory",
    ['Name', 'Assets', 'kg CO2e', 'Share'],
    rows.map((r) => [
      escapeHtml(r.label),
      count(r.assets),
      kg('value' in r ? r.value : r.total_kg_co2e),
      `${shareBar(r.share_pct)}${pct(r.share_pct)}`,
    ]),
    new Set([1, 2, 3]),
    id,
  )}</section>`;
}

/** Vertical bars of the monthly trend; the table after it gives the figures. */
function trendChart(buckets: DashboardData['report']['trend']['buckets']): string {
  const width = 640;
  const height = 220;
  const left = 8;
  const bottom = 50;
  const max = Math.max(...buckets.map((b) => b.total_kg_co2e), 0);
  const step = (width - left) / Math.max(buckets.length, 1);
  const bars = buckets
    .map((b, i) => {
      const h = max > 0 ? ((height - bottom - 28) * b.total_kg_co2e) / max : 0;
      const x = left + i * step;
      const [month, year] = b.label.split(' ');
      // The year under the first month and under each January, so the axis reads without the table.
      const yearLabel =
        i === 0 || month === 'Jan' ? `<tspan x="${(x + step / 2).toFixed(1)}" dy="1.2em">${escapeHtml(year ?? '')}</tspan>` : '';
      return `<rect class="bar" x="${(x + step * 0.15).toFixed(1)}" y="${(height - bottom - h).toFixed(1)}" width="${(step * 0.7).toFixed(1)}" height="${h.toFixed(1)}"></rect><text x="${(x + step / 2).toFixed(1)}" y="${height - bottom}" dy="1.2em" text-anchor="middle">${escapeHtml(month ?? '')}${yearLabel}</text>`;
    })
    .join('');
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMinYMin meet" role="img" aria-labelledby="trend-h"><text x="${left}" y="0" dy="1em">${max > 0 ? `largest month ${kg(max)} kg CO2e` : 'no purchases in the period'}</text><line class="axis" x1="${left}" x2="${width}" y1="${height - bottom}" y2="${height - bottom}"></line>${bars}</svg>`;
}

/** One bar split by confidence level; the table after it gives the shares. */
function confidenceChart(rows: DashboardData['report']['confidence_mix']): string {
  let x = 0;
  const parts = rows
    .map((r) => {
      const part = `<rect class="c-${r.level}" x="${x.toFixed(2)}" y="0" width="${r.share_pct.toFixed(2)}" height="12"><title>${CONFIDENCE_NAMES[r.level]}: ${r.share_pct} %</title></rect>`;
      x += r.share_pct;
      return part;
    })
    .join('');
  return `<svg class="mix" viewBox="0 0 100 12" preserveAspectRatio="none" role="img" aria-labelledby="confidence-h">${parts}</svg>`;
}

/** The whole-life ADPe and PE of all assets, as GraphQL Organization gives them: over the assets that have them, saying how many. */
function impactTotals(o: DashboardData['overview']): string {
  if (o.adpe_kg_sb_eq === null || o.pe_mj === null)
    return 'Whole-life ADPe and PE of all assets <strong id="impacts">none yet</strong> (no asset was calculated with them)';
  const figure = (n: number) => n.toLocaleString('en-US', { maximumSignificantDigits: 4 });
  const partial =
    o.impacts_asset_count < o.asset_count
      ? `${o.impacts_asset_count.toLocaleString('en-US')} of ${o.asset_count.toLocaleString('en-US')} assets; the others are not calculated or were calculated before ADPe and PE`
      : 'all assets';
  return `Whole-life ADPe <strong id="adpe" data-adpe="${o.adpe_kg_sb_eq}">${figure(o.adpe_kg_sb_eq)} kg Sb eq</strong>, PE <strong id="pe" data-pe="${o.pe_mj}">${figure(o.pe_mj)} MJ</strong>
    <span id="impacts-assets">(${partial})</span>`;
}

export function dashboardBody(d: DashboardData, message?: string): string {
  const r = d.report;
  const u = r.uncertainty;
  const totals = `<section aria-labelledby="totals-h"><h2 id="totals-h">Inventory totals</h2>
<ul class="figures">
  <li>Lifecycle total of all assets <strong id="total-kg" data-kg="${d.overview.total_kg_co2e}">${kg(d.overview.total_kg_co2e)} kg CO2e</strong></li>
  <li>Assets <strong id="asset-count">${d.overview.asset_count.toLocaleString('en-US')}</strong></li>
  <li>${impactTotals(d.overview)}</li>
  <li>Inventory ${r.date_from} to ${r.date_to} <strong id="inventory-kg">${kg(r.totals.total_kg_co2e)} kg CO2e</strong>
    <span id="uncertainty">~80 % interval ${kg(u.total.low_kg)} to ${kg(u.total.high_kg)} kg</span></li>
</ul>
${table(
  'Inventory of the period by lifecycle phase, with the ~80 % interval',
  ['Phase', 'kg CO2e', 'Low', 'High'],
  (
    [
      ['Production', 'production_kg'],
      ['Transport', 'transport_kg'],
      ['Use', 'use_phase_kg'],
      ['End of life', 'end_of_life_kg'],
    ] as const
  ).map(([name, key]) => [name, kg(r.totals[key]), kg(u.phases[key].low_kg), kg(u.phases[key].high_kg)]),
  new Set([1, 2, 3]),
)}
<p>${escapeHtml(r.period_semantics)}</p></section>`;

  const trend = `<section aria-labelledby="trend-h"><h2 id="trend-h">Trend by month: lifecycle totals of the assets bought each month</h2>
${trendChart(r.trend.buckets)}
<details><summary>The chart's figures by month</summary>
${table(
  'Lifecycle total of the assets bought each month (kg CO2e)',
  ['Month', 'kg CO2e'],
  r.trend.buckets.map((b) => [escapeHtml(b.label), kg(b.total_kg_co2e)]),
  new Set([1]),
  'trend',
)}</details></section>`;

  const top = `<section aria-labelledby="top-h"><h2 id="top-h">Largest contributors</h2>
${ranked('Top categories', r.by_category.slice(0, 10), 'top-categories')}
${ranked('Top countries', r.by_country.slice(0, 10), 'top-countries')}
${ranked('Top models', r.hotspots?.models ?? [], 'top-models')}</section>`;

  const confidence = `<section aria-labelledby="confidence-h"><h2 id="confidence-h">Estimates by confidence</h2>
${r.confidence_mix.length ? confidenceChart(r.confidence_mix) : ''}
${table(
  'Share of the inventory by confidence of its calculations',
  ['Confidence', 'Assets', 'Share', 'Stated uncertainty'],
  r.confidence_mix.map((c) => [
    // The swatch is the chart's legend.
    `<svg class="swatch" viewBox="0 0 1 1" aria-hidden="true" focusable="false"><rect class="c-${c.level}" width="1" height="1"></rect></svg>${CONFIDENCE_NAMES[c.level]!}`,
    count(c.assets),
    pct(c.share_pct),
    c.uncertainty_pct
      ? `±&nbsp;${c.uncertainty_pct.min}${c.uncertainty_pct.max !== c.uncertainty_pct.min ? ` to ${c.uncertainty_pct.max}` : ''}&nbsp;%`
      : 'none',
  ]),
  new Set([1, 2]),
  'confidence',
)}</section>`;

  const quota = `<section aria-labelledby="quota-h"><h2 id="quota-h">Quota use today (UTC)</h2>
${table(
  'Requests today against the daily limit, per key not revoked',
  ['Key', 'Name', 'Requests'],
  d.quota.map((q) => [
    `<code>${escapeHtml(q.prefix)}…</code>`,
    escapeHtml(q.name ?? ''),
    `<meter min="0" max="${q.limit}" value="${q.used}"></meter> <span class="nw">${count(q.used)} / ${count(q.limit)}</span>`,
  ]),
  new Set(),
  'quota',
)}</section>`;

  const certificates = `<section aria-labelledby="certificates-h"><h2 id="certificates-h">Certificates issued (${d.certificateCount})</h2>
${table(
  `The ${d.certificates.length} most recent certificates`,
  ['Number', 'Issued', 'State'],
  d.certificates.map((c) => [
    `<a class="nw" href="/verify/${escapeHtml(c.certificate_number)}">${escapeHtml(c.certificate_number)}</a>`,
    day(c.issued_at),
    c.revoked_at
      ? `revoked ${day(c.revoked_at)}`
      : `in force <form class="inline" method="post" action="/console/dashboard/certificates/${escapeHtml(c.id)}/revoke"><button type="submit" aria-label="Revoke ${escapeHtml(c.certificate_number)}">Revoke</button></form>`,
  ]),
  new Set(),
  'certificates',
)}</section>`;

  const exports = `<section aria-labelledby="exports-h"><h2 id="exports-h">Export jobs</h2>
${table(
  'Export jobs of the last days, most recent first',
  ['Requested', 'Status', 'Size', ''],
  d.exports.map((e) => [
    time(e.created_at),
    `<span class="${e.status === 'failed' ? 'failed' : ''}">${escapeHtml(e.status)}</span>${e.error_message ? `: ${escapeHtml(e.error_message)}` : ''}`,
    e.bytes === null ? '' : `${Number(e.bytes).toLocaleString('en-US')} bytes`,
    e.status === 'completed' ? `<a href="/console/dashboard/exports/${escapeHtml(e.id)}/download">Download</a>` : '',
  ]),
  new Set([2]),
  'exports',
)}</section>`;

  const erasure = `<section aria-labelledby="erasure-h"><h2 id="erasure-h">Erasure-report sync runs</h2>
${table(
  'Most recent sync runs with their errors',
  ['Started', 'Status', 'Reports'],
  d.erasureRuns.map((run) => [
    time(run.started_at),
    `<span class="${run.status === 'failed' ? 'failed' : ''}">${escapeHtml(run.status)}</span>${run.error_message ? `<br><span class="error-text">${escapeHtml(run.error_code ?? '')}: ${escapeHtml(run.error_message)}</span>` : ''}`,
    `${count(run.synced)} synced, ${count(run.skipped)} skipped, <span class="${run.errors > 0 ? 'error-text' : ''}">${count(run.errors)} with errors</span>`,
  ]),
  new Set(),
  'erasure',
)}</section>`;

  const deliveries = `<section aria-labelledby="webhooks-h"><h2 id="webhooks-h">Webhook deliveries (${d.deliveryCount})</h2>
${table(
  'Most recent delivery attempts',
  ['When', 'Event', 'Result'],
  d.deliveries.map((w) => [
    time(w.created_at),
    `${escapeHtml(w.event)}, attempt ${w.attempt}`,
    `<span class="${w.status === 'failed' ? 'failed' : ''}">${escapeHtml(w.status)}${w.response_status ? ` (HTTP ${w.response_status})` : ''}</span>${w.error ? `: ${escapeHtml(w.error)}` : ''}`,
  ]),
  new Set(),
  'webhooks',
)}</section>`;

  return `<div class="dash"><h1>Dashboard of ${escapeHtml(d.organization.name)} <small>(${escapeHtml(d.organization.plan)} plan)</small></h1>
<nav aria-label="Console"><a href="/console">API keys</a><form class="inline" method="post" action="/console/logout"><button type="submit">Sign out</button></form></nav>
${message ? `<p role="status">${escapeHtml(message)}</p>` : ''}
<main>${totals}${trend}${top}${confidence}${quota}${certificates}${exports}${erasure}${deliveries}</main></div>`;
}
