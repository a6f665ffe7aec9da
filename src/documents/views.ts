/**
 * What the PDF documents show: plain data assembled by the certificate and report capabilities,
 * rendered by src/documents (pdfkit, off the request thread). Numbers are kg CO2e unless named.
 */

export interface LifecyclePhases {
  production_kg: number;
  transport_kg: number;
  use_phase_kg: number;
  end_of_life_kg: number;
}

/** What a footprint certificate states: the lifecycle of one product. */
export interface FootprintStatement {
  kind: 'footprint';
  phases: LifecyclePhases;
  total_kg_co2e: number;
  /** uncertaintyInterval() of the total (src/footprint/engine/interval.ts). */
  interval: { low_kg: number; high_kg: number };
  /** Years of use the use phase covers; null on certificates issued before it was stated. */
  lifetime_years: number | null;
}

/**
 * The avoided ADPe (kg Sb eq) and PE (MJ) beside the avoided CO2e, as the calculation's stored `impacts`
 * totals; null when the calculation was stored before impacts existed (never computed afterwards for a
 * signed statement); absent on certificates issued before they were certified.
 */
export type AvoidedImpacts = { adpe_kg_sb_eq: number; pe_mj: number } | null;

/** What a savings certificate states: the emissions avoided by keeping a device instead of buying a new one. */
export interface SavingsStatement {
  kind: 'savings';
  remaining_life_years: number;
  avoided_co2_kg: number;
  avoided_production_kg: number;
  avoided_transport_kg: number;
  additional_use_phase_kg: number;
  km_driving_avoided: number;
  trees_year_equivalent: number;
  avoided_impacts?: AvoidedImpacts;
}

/** What a refurbishment certificate states: a refurbished device against buying a new one, used in the reuse country. */
export interface RefurbishmentStatement {
  kind: 'refurbishment';
  grade: string;
  grade_label: string;
  reuse_country: string;
  reuse_grid_factor_kg_per_kwh: number;
  remaining_life_years: number;
  gross_avoided_kg: number;
  overhead_kg: number;
  swaps: { token: string; production_kg: number }[];
  swaps_total_kg: number;
  additional_use_phase_kg: number;
  net_savings_kg: number;
  net_savings_pct: number;
  /** Years until the extra electricity has used up the savings; null: never. */
  break_even_years: number | null;
  km_driving_avoided: number;
  trees_year_equivalent: number;
  avoided_impacts?: AvoidedImpacts;
}

export type CertificateStatement = FootprintStatement | SavingsStatement | RefurbishmentStatement;

export interface CertificateDataSource {
  label: string;
  source: string;
  version: string | null;
  valid_from: string | null;
}

/** The signed facts of a certificate (from its canonical payload), its state and how to check it. */
export interface CertificateView {
  certificate_number: string;
  issued_at: string;
  organization_name: string;
  product: { brand: string; name: string; mpn: string | null; category: string };
  /** The calculation's country of use. */
  country: string;
  statement: CertificateStatement;
  methodology: { standard: string; engine_version: string; confidence: string; uncertainty_pct: number };
  /** Each emission factor or data source a printed figure used, with its vintage. */
  data_sources: CertificateDataSource[];
  verify_url: string;
  key_id: string;
  /** Hex SHA-256 of the signature, shown as 4-character groups. */
  signature_fingerprint: string;
  /** Certificates issued with a svc_test_ key say so on the page. */
  sandbox: boolean;
  /** When the organisation revoked it (every page says so); null while in force. */
  revoked_at: string | null;
}

/** What a certificate states, as signed: the view without how to check it and without its state. */
export type CertificateFacts = Omit<CertificateView, 'verify_url' | 'key_id' | 'signature_fingerprint' | 'revoked_at'>;

export interface ReportBreakdownRow {
  label: string;
  assets: number;
  total_kg_co2e: number;
  share_pct: number;
}

/** A hotspot: `value` in the unit of the hotspot analysis' criterion. */
export interface ReportRankRow {
  label: string;
  assets: number;
  value: number;
  share_pct: number;
}

export interface ReportAction {
  /** e.g. "Extend the life of 120 laptops by one year". */
  action: string;
  /** In the unit of the hotspot analysis' criterion. */
  saving: number;
  basis: string;
}

/** The criterion a hotspot analysis ranks by (POST /v1/report `criterion`). */
export interface ReportCriterion {
  id: 'gwp' | 'adpe' | 'pe';
  /** "ADPe" */
  name: string;
  /** "abiotic depletion of elements" */
  meaning: string;
  /** "kg Sb eq", as the API's `impacts.*.unit` */
  unit: string;
}

/** An ~80 % interval, kg CO2e. */
export interface ReportInterval {
  low_kg: number;
  high_kg: number;
}

/** How sure the report's totals are: the assets' own intervals, combined as `method` says. */
export interface ReportUncertainty {
  /** The sentence printed on the report: how each asset's interval is formed and how they are summed. */
  method: string;
  total: ReportInterval;
  phases: Record<keyof LifecyclePhases, ReportInterval>;
  /** Assets whose calculation states no uncertainty: counted at their value in both bounds (the notes say so). */
  assets_without_uncertainty: number;
}

/** Assets per confidence level of their active calculation. */
export interface ReportConfidenceRow {
  level: 'manufacturer_verified' | 'estimated_high' | 'estimated_medium' | 'estimated_low';
  assets: number;
  share_pct: number;
  total_kg_co2e: number;
  /** The smallest and largest uncertainty_pct stated by these assets' calculations; null when none states one. */
  uncertainty_pct: { min: number; max: number } | null;
}

/** A grid-factor source used by the calculations behind the report, with its vintage. */
export interface ReportFactorSource {
  source: string;
  version: string;
  licence: string | null;
  /** valid_from of the factors used, first and last (YYYY-MM-DD). */
  valid_from: { first: string; last: string };
  regions: number;
  assets: number;
}

/** Shared by both report types; `sections` holds what differs. */
export interface ReportView {
  type: 'sustainability_summary' | 'hotspot_analysis';
  organization_name: string;
  date_from: string;
  date_to: string;
  generated_at: string;
  /** How the period selects data, written on the report. */
  period_semantics: string;
  asset_count: number;
  calculation_count: number;
  totals: LifecyclePhases & { total_kg_co2e: number };
  uncertainty: ReportUncertainty;
  confidence_mix: ReportConfidenceRow[];
  grid_factor_sources: ReportFactorSource[];
  /** Inventory assets whose calculation records no grid factor (calculation_factors). */
  assets_without_grid_factor: number;
  /** Engine versions of the inventory's calculations, most assets first. */
  engine_versions: { version: string; assets: number }[];
  /** True when the period has no data: the report says so instead of showing empty charts. */
  empty: boolean;
  by_category: ReportBreakdownRow[];
  by_country: ReportBreakdownRow[];
  /** Lifecycle totals of the assets bought in each month, quarter or year of the period (src/reports/trend.ts). */
  trend: { granularity: 'month' | 'quarter' | 'year'; buckets: { period: string; label: string; total_kg_co2e: number }[] };
  /** Summary: avoided emissions from reuse and refurbishment in the period. */
  savings?: { reuse_kg_co2e: number; refurbishment_kg_co2e: number; basis: string };
  sbti_targets?: { name: string; base_year: number; target_year: number; reduction_pct: number; scope: string }[];
  /**
   * Summary: the inventory's three criteria by phase: GWP (kg CO2e, the totals), ADPe (kg Sb eq) and PE (MJ) from
   * the active calculations' stored impacts; assets whose calculation predates them are counted apart.
   */
  criteria?: {
    gwp: CriterionPhaseTotals & { total: number };
    adpe: CriterionPhaseTotals & { total: number };
    pe: CriterionPhaseTotals & { total: number };
    assets_without_impacts: number;
  };
  /** Summary: the greenhouse-gas inventory of the period, as GET /v1/inventory answers it (docs/inventory.md). */
  ghg_inventory?: {
    method: string;
    rows: { label: string; assets: number; kg_co2e: number; market_based_kg_co2e: number }[];
    total: { assets: number; kg_co2e: number; market_based_kg_co2e: number };
    scope_2: { location_based_kg_co2e: number; market_based_kg_co2e: number; location_based_fallback: boolean };
  };
  /** Hotspots: ranked contributors (the top rows of `*_count`) and what actions would save, all in `criterion`'s unit. */
  hotspots?: {
    criterion: ReportCriterion;
    /** ADPe and PE: assets whose calculation was stored before impacts beyond carbon, left out of the rankings. */
    assets_without_impacts: number;
    categories: ReportRankRow[];
    categories_count: number;
    models: ReportRankRow[];
    models_count: number;
    components: { component: string; value: number; share_pct: number }[];
    actions: ReportAction[];
  };
  notes: string[];
  sandbox: boolean;
}

/** One criterion's figures by lifecycle phase (the API's `impacts.*.phases`). */
export interface CriterionPhaseTotals {
  production: number;
  transport: number;
  use: number;
  end_of_life: number;
}
