import * as fmt from './format.ts';
import type { AvoidedImpacts, CertificateDataSource, CertificateFacts, CertificateStatement, FootprintStatement } from './views.ts';

/**
 * The sentences and figures a certificate states, written once for the PDF (certificate.ts) and the
 * public verification page (src/certificates/page.ts), so both say exactly the same.
 */

export type Row = [label: string, value: string];

const number = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 2 });
/** Grid factors, kg CO2e/kWh: three significant digits (0.433, 0.0312). */
const gridFactor = new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 3 }).format;
const years = (value: number) => `${number.format(value)} ${value === 1 ? 'year' : 'years'}`;
const kg = (value: number) => `${fmt.kg(value)} kg CO₂e`;

export const CERTIFICATE_TITLES: Record<CertificateStatement['kind'], string> = {
  footprint: 'Lifecycle carbon footprint of one product',
  savings: 'Emissions avoided by keeping a device in use',
  refurbishment: 'Emissions avoided by refurbishing instead of buying new',
};

/** The one figure a certificate is about, for the box at the top (its row in statementRows has the same label). */
export function headline(statement: CertificateStatement): { label: string; kg: number; note: string } {
  switch (statement.kind) {
    case 'footprint':
      return {
        label: 'Lifecycle total',
        kg: statement.total_kg_co2e,
        note: `range ${fmt.kg(statement.interval.low_kg)} to ${fmt.kg(statement.interval.high_kg)} kg`,
      };
    case 'savings':
      return {
        label: 'Avoided emissions',
        kg: statement.avoided_co2_kg,
        note: `over ${years(statement.remaining_life_years)} of further use`,
      };
    case 'refurbishment':
      return {
        label: 'Net savings',
        kg: statement.net_savings_kg,
        note: `${fmt.pct(statement.net_savings_pct)} of a new device’s production and transport`,
      };
  }
}

export const PRODUCT_LABEL = 'Product';

/** What and where: the product and the countries whose figures the statement uses. */
export function subjectRows(facts: CertificateFacts): Row[] {
  const { product, statement } = facts;
  const rows: Row[] = [
    [PRODUCT_LABEL, fmt.productName(product.brand, product.name)],
    ['Model number (MPN)', product.mpn ?? 'not given'],
    ['Category', product.category],
  ];
  if (statement.kind === 'refurbishment') {
    rows.push(['Grade', `${statement.grade} (${statement.grade_label})`]);
    rows.push(['Country of reuse', `${statement.reuse_country}, grid ${gridFactor(statement.reuse_grid_factor_kg_per_kwh)} kg CO₂e/kWh`]);
    rows.push(['New device delivered to', facts.country]);
  } else {
    rows.push(['Country of use', facts.country]);
  }
  if (statement.kind === 'footprint' && statement.lifetime_years !== null) rows.push(['Years of use', years(statement.lifetime_years)]);
  return rows;
}

const equivalentRow = (s: { km_driving_avoided: number; trees_year_equivalent: number }): Row => [
  'Equivalent to',
  `${fmt.count(s.km_driving_avoided)} km by an average car, or ${fmt.kg(s.trees_year_equivalent)} tree-years of CO₂ uptake`,
];

/**
 * The avoided ADPe and PE beside the avoided CO2e (net of the same costs), on one row; "not computed" for a
 * calculation stored before impacts existed; nothing on a certificate issued before they were certified.
 */
function avoidedImpactRows(impacts: AvoidedImpacts | undefined): Row[] {
  if (impacts === undefined) return [];
  if (impacts === null) return [[IMPACTS_AVOIDED_LABEL, 'not computed (calculated before ADPe and PE were)']];
  return [[IMPACTS_AVOIDED_LABEL, `${fmt.significant(impacts.adpe_kg_sb_eq)} kg Sb eq ADPe · ${fmt.significant(impacts.pe_mj)} MJ PE`]];
}

export const IMPACTS_AVOIDED_LABEL = 'Metals and energy avoided';

/** null is "never" for two reasons, told apart by the sign of the net savings (they are positive when only the extra electricity is missing). */
function breakEven(statement: { break_even_years: number | null; net_savings_kg: number }): string {
  if (statement.break_even_years !== null) return `after ${years(statement.break_even_years)} of use`;
  return statement.net_savings_kg > 0
    ? 'never: it uses no more electricity than a new one'
    : 'never: refurbishing emits more than it avoids';
}

/** The figures of the statement, in the order they add up. */
export function statementRows(statement: CertificateStatement): Row[] {
  switch (statement.kind) {
    case 'footprint':
      return [
        ['Production', kg(statement.phases.production_kg)],
        ['Transport', kg(statement.phases.transport_kg)],
        ['Use', kg(statement.phases.use_phase_kg)],
        ['End of life', kg(statement.phases.end_of_life_kg)],
        ['Lifecycle total', kg(statement.total_kg_co2e)],
      ];
    case 'savings':
      return [
        ['Further use', years(statement.remaining_life_years)],
        ['Production of a new device, avoided', kg(statement.avoided_production_kg)],
        ['Transport of a new device, avoided', kg(statement.avoided_transport_kg)],
        ['Extra electricity of the older device', `− ${kg(statement.additional_use_phase_kg)}`],
        ['Avoided emissions', kg(statement.avoided_co2_kg)],
        ...avoidedImpactRows(statement.avoided_impacts),
        equivalentRow(statement),
      ];
    case 'refurbishment':
      return [
        ['Further use', years(statement.remaining_life_years)],
        ['New device’s production and transport, avoided', kg(statement.gross_avoided_kg)],
        ['Refurbishing work, parts and logistics', `− ${kg(statement.overhead_kg)}`],
        [
          'Replaced components',
          statement.swaps.length
            ? `− ${kg(statement.swaps_total_kg)}: ${statement.swaps.map((s) => `${s.token} ${fmt.kg(s.production_kg)} kg`).join(', ')}`
            : 'none',
        ],
        ['Extra electricity in the country of reuse', `− ${kg(statement.additional_use_phase_kg)}`],
        ['Net savings', `${kg(statement.net_savings_kg)} (${fmt.pct(statement.net_savings_pct)})`],
        ['Break-even (extra electricity = savings)', breakEven(statement)],
        ...avoidedImpactRows(statement.avoided_impacts),
        equivalentRow(statement),
      ];
  }
}

/** The interval and how it is formed, briefly: the total divided and multiplied by 1 + u. */
function uncertainty(statement: FootprintStatement, pct: number): string {
  const factor = number.format(1 + pct / 100);
  return `± ${fmt.pct(pct)}: ${fmt.kg(statement.interval.low_kg)} to ${fmt.kg(statement.interval.high_kg)} kg (total ÷ ${factor} to total × ${factor}; never below zero)`;
}

export function methodologyRows(facts: CertificateFacts): Row[] {
  const { methodology: m, statement } = facts;
  return [
    ['Standard', m.standard],
    ['Calculation engine', m.engine_version],
    ['Confidence', m.confidence],
    [
      'Uncertainty',
      statement.kind === 'footprint'
        ? uncertainty(statement, m.uncertainty_pct)
        : `± ${fmt.pct(m.uncertainty_pct)} of the new device’s lifecycle footprint these savings derive from`,
    ],
  ];
}

/** What a revoked certificate says, on every page of its PDF and on its verification page. */
export function revokedNotice(revokedAt: string): { title: string; body: string } {
  return {
    title: `Revoked on ${fmt.date(revokedAt)}: do not rely on this certificate`,
    body: `The issuing organisation revoked this certificate on ${fmt.dateTime(revokedAt)}. The facts below were signed when it was issued and are no longer vouched for.`,
  };
}

/** A data source as one line (the page); the PDF prints the same parts as table columns. */
export function sourceLine(s: CertificateDataSource): string {
  return `${s.label}: ${s.source}${s.version ? `, ${s.version}` : ''}${s.valid_from ? `, valid from ${fmt.date(s.valid_from)}` : ''}`;
}
