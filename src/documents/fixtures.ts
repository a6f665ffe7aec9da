import { uncertaintyInterval } from '../footprint/engine/interval.ts';
import type { CertificateView, ReportBreakdownRow, ReportRankRow, ReportView } from './views.ts';

/** Realistic views for tests, the bench and looking at the pages (`tsx src/documents/preview.ts`). */

export const certificateView: CertificateView = {
  certificate_number: 'LCF-7K2M9QX4TB',
  issued_at: '2025-03-14T09:30:00.000Z',
  organization_name: 'Müller GmbH',
  product: { brand: 'Dell', name: 'Latitude 5440', mpn: 'N015L544014EMEA_VP', category: 'Laptop' },
  country: 'Germany (DE)',
  statement: {
    kind: 'footprint',
    phases: { production_kg: 214.6, transport_kg: 12.3, use_phase_kg: 58.9, end_of_life_kg: 2.1 },
    total_kg_co2e: 287.9,
    interval: uncertaintyInterval(287.9, 15),
    lifetime_years: 4,
  },
  methodology: {
    standard: 'ISO 14067:2018, GHG Protocol Product Standard',
    engine_version: 'lcf-engine 3.4.1',
    confidence: 'high',
    uncertainty_pct: 15,
  },
  data_sources: [
    {
      label: 'Embodied emissions (production)',
      source: 'Dell Product Carbon Footprint, Latitude 5440',
      version: '2023-06',
      valid_from: '2023-06-01',
    },
    {
      label: 'Grid intensity, Germany',
      source: 'European Environment Agency, CO₂ intensity of electricity generation',
      version: '2024',
      valid_from: '2024-01-01',
    },
    { label: 'Freight, Asia to Europe', source: 'GLEC Framework v3 default factors', version: '3.0', valid_from: '2023-01-01' },
    { label: 'End-of-life treatment', source: 'ecoinvent 3.10, WEEE recycling (cut-off)', version: '3.10', valid_from: null },
  ],
  verify_url: 'https://carbon.example.com/v1/certificate/verify?number=LCF-7K2M9QX4TB',
  key_id: 'cert-2025-01-Qm9X2kLp',
  signature_fingerprint: '3f9a1c7be24d08f56a1e93c2d7b40f8e5c61a2d9e0b7f34c8a59d1e26b3c7f0a',
  sandbox: false,
  revoked_at: null,
};

/** A Chinese organisation, a sandbox certificate. */
export const sandboxCertificateView: CertificateView = {
  ...certificateView,
  certificate_number: 'TST-Q8W3E5R7T9',
  organization_name: '北京绿色科技有限公司 (Beijing Green Tech)',
  country: 'China (CN)',
  statement: {
    kind: 'footprint',
    phases: { production_kg: 214.6, transport_kg: 6.8, use_phase_kg: 96.4, end_of_life_kg: 2.1 },
    total_kg_co2e: 319.9,
    interval: uncertaintyInterval(319.9, 15),
    lifetime_years: 4,
  },
  sandbox: true,
};

const GRID_FR = {
  label: 'Grid factor, country of use (FR): 0.044 kg CO2e/kWh',
  source: 'Electricity Maps carbon intensity, lifecycle, zone FR (France); via @tgwf/co2 0.19.0',
  version: '2025 yearly average',
  valid_from: '2025-01-01',
};
const EQUIVALENTS = [
  {
    label: 'Driving equivalent: 0.17 kg CO2e/km',
    source: 'UK DESNZ greenhouse gas conversion factors, average car, unknown fuel (0.168, rounded)',
    version: '2023',
    valid_from: null,
  },
  {
    label: 'Tree equivalent: 21.77 kg CO2e/year',
    source: 'Arbor Day Foundation: 48 lb CO2 a mature tree absorbs in a year',
    version: null,
    valid_from: null,
  },
];

/** Keeping a laptop two more years in France instead of buying a new one. */
export const savingsCertificateView: CertificateView = {
  ...certificateView,
  certificate_number: 'LCF-S4V1NG5X2A',
  product: { brand: 'Lenovo', name: 'ThinkPad T14 Gen 4', mpn: null, category: 'laptop' },
  country: 'FR',
  statement: {
    kind: 'savings',
    remaining_life_years: 2,
    avoided_co2_kg: 179.49,
    avoided_production_kg: 170.2,
    avoided_transport_kg: 9.9,
    additional_use_phase_kg: 0.61,
    km_driving_avoided: 1056,
    trees_year_equivalent: 8.2,
  },
  data_sources: [
    { label: 'Product data', source: 'built-in catalogue: Lenovo ThinkPad T14 Gen 4 (by model name)', version: null, valid_from: null },
    GRID_FR,
    ...EQUIVALENTS,
  ],
};

/** A grade-B refurbishment with two swaps, reused in Texas. */
export const refurbishmentCertificateView: CertificateView = {
  ...savingsCertificateView,
  certificate_number: 'LCF-R3FURB15HD',
  statement: {
    kind: 'refurbishment',
    grade: 'B',
    grade_label: 'Good',
    reuse_country: 'US-TX',
    reuse_grid_factor_kg_per_kwh: 0.396,
    remaining_life_years: 2,
    gross_avoided_kg: 180.1,
    overhead_kg: 6.42,
    swaps: [
      { token: 'battery:56', production_kg: 4.48 },
      { token: 'storage:512:nvme', production_kg: 6.1 },
    ],
    swaps_total_kg: 10.58,
    additional_use_phase_kg: 5.47,
    net_savings_kg: 157.63,
    net_savings_pct: 87.52,
    break_even_years: 59.6,
    km_driving_avoided: 927,
    trees_year_equivalent: 7.2,
  },
  data_sources: [
    savingsCertificateView.data_sources[0]!,
    {
      ...GRID_FR,
      label: 'Grid factor, country of reuse (US-TX): 0.396 kg CO2e/kWh',
      source: 'Electricity Maps carbon intensity, lifecycle, zone US-TEX-ERCO; via @tgwf/co2 0.19.0',
    },
    ...EQUIVALENTS,
  ],
};

export const revokedCertificateView: CertificateView = { ...certificateView, revoked_at: '2025-06-02T11:04:00.000Z' };

/** The product data lines the engine writes for a catalogue device (src/footprint/device.ts), as long as they get. */
const CATALOGUE_SOURCES = [
  'built-in catalogue: Dell Latitude 5440 (by model name)',
  'catalogue weight_kg, screen_size_inch, screen_type, battery_wh: published (Dell Latitude 5440 Setup and Specifications guide / spec sheet (dell.com support manuals); typical configuration)',
  'catalogue processor_tdp_w, ram_gb, storage_gb, storage_type: configuration (Dell Latitude 5440 Setup and Specifications guide / spec sheet (dell.com support manuals); typical configuration)',
  'not published for this model, estimated by the engine (category laptop): typical_consumption_kwh',
  'manufacturer-published footprint: https://www.delltechnologies.com/asset/en-us/products/laptops/technical-support/latitude-5440-pcf-datasheet.pdf',
].map((source) => ({ label: 'Product data', source, version: null, valid_from: null }));

/** The largest usual certificate: a 200-character product name and six long data sources, which still fit one page. */
export const longNameCertificateView: CertificateView = {
  ...certificateView,
  product: {
    ...certificateView.product,
    name: 'Latitude 5440 Business Notebook, 14 inch FHD+ anti-glare IPS display, Intel Core i7-1365U vPro, 32 GB DDR5 memory, 1 TB PCIe NVMe SSD, Intel Iris Xe graphics, Wi-Fi 6E, 4-cell 54 Wh battery, grey',
  },
  data_sources: [
    ...CATALOGUE_SOURCES,
    {
      label: 'Grid factor, country of use (DE): 0.342 kg CO2e/kWh',
      source: 'Electricity Maps carbon intensity, lifecycle, zone DE (Germany); via @tgwf/co2 0.19.0',
      version: '2025 yearly average (electricityMaps.yearly2025)',
      valid_from: '2025-01-01',
    },
  ],
};

/** More data sources than one page holds: they continue on page 2. */
export const manySourcesCertificateView: CertificateView = {
  ...longNameCertificateView,
  data_sources: Array.from({ length: 16 }, (_, i) => ({
    ...certificateView.data_sources[i % 4]!,
    label: `${certificateView.data_sources[i % 4]!.label} (${i + 1})`,
  })),
};

const CATEGORIES = [
  'Laptop',
  'Desktop',
  'Monitor',
  'Smartphone',
  'Server',
  'Tablet',
  'Printer',
  'Network switch',
  'Docking station',
  'Thin client',
];

function rows(labels: string[], total: number, assets: number): ReportBreakdownRow[] {
  // A long tail: each row a bit over half the one before, then normalised to the total.
  const weights = labels.map((_, i) => 1 / (i + 1) ** 1.3);
  const sum = weights.reduce((a, b) => a + b, 0);
  return labels.map((label, i) => ({
    label,
    assets: Math.max(1, Math.round((assets * weights[i]!) / sum)),
    total_kg_co2e: Math.round(((total * weights[i]!) / sum) * 10) / 10,
    share_pct: Math.round((weights[i]! / sum) * 1000) / 10,
  }));
}

/** Breakdown rows as hotspot rows (GWP: the value is the kg CO2e). */
const ranked = (breakdown: ReportBreakdownRow[]): ReportRankRow[] =>
  breakdown.map(({ total_kg_co2e, ...row }) => ({ ...row, value: total_kg_co2e }));

const TOTAL = 184_312.4;

const interval = (value: number, low: number, high: number) => ({
  low_kg: Math.round(value * low * 100) / 100,
  high_kg: Math.round(value * high * 100) / 100,
});

const base: Omit<ReportView, 'type'> = {
  organization_name: 'Müller GmbH',
  date_from: '2025-01-01',
  date_to: '2025-12-31',
  generated_at: '2026-01-05T08:15:00.000Z',
  period_semantics:
    'Covers calculations made between 1 January 2025 and 31 December 2025 (UTC, both days included) for assets the organisation held in that period; each asset counts once, with its latest calculation in the period.',
  asset_count: 612,
  calculation_count: 1_904,
  totals: { production_kg: 131_402.7, transport_kg: 6_211.3, use_phase_kg: 44_987.1, end_of_life_kg: 1_711.3, total_kg_co2e: TOTAL },
  uncertainty: {
    method:
      'Each asset’s ~80 % interval from the uncertainty_pct of its active calculation, summed bound by bound (errors taken as fully correlated). Never below zero.',
    total: interval(TOTAL, 0.71, 1.46),
    phases: {
      production_kg: interval(131_402.7, 0.7, 1.48),
      transport_kg: interval(6_211.3, 0.7, 1.48),
      use_phase_kg: interval(44_987.1, 0.74, 1.4),
      end_of_life_kg: interval(1_711.3, 0.7, 1.48),
    },
    assets_without_uncertainty: 0,
  },
  confidence_mix: [
    { level: 'manufacturer_verified', assets: 96, share_pct: 15.7, total_kg_co2e: 24_310.2, uncertainty_pct: { min: 21, max: 24 } },
    { level: 'estimated_medium', assets: 402, share_pct: 65.7, total_kg_co2e: 121_877.5, uncertainty_pct: { min: 18, max: 52 } },
    { level: 'estimated_low', assets: 114, share_pct: 18.6, total_kg_co2e: 38_124.7, uncertainty_pct: { min: 45, max: 110 } },
  ],
  grid_factor_sources: [
    ['DE (Germany)', 402],
    ['AT (Austria)', 88],
    ['CH (Switzerland)', 51],
    ['PL (Poland)', 40],
    ['FR (France)', 17],
  ]
    .map(([zone, assets]) => ({
      source: `Electricity Maps carbon intensity, lifecycle, zone ${zone}; via @tgwf/co2 0.16.8`,
      version: '2024 yearly average (electricityMaps.yearly2024)',
      licence: 'ODbL-1.0',
      valid_from: { first: '2024-01-01', last: '2024-01-01' },
      regions: 1,
      assets: assets as number,
    }))
    .concat({
      source: 'Ember Yearly Electricity Data, emissions intensity (lifecycle CO2e), CN; via @tgwf/co2 0.16.8',
      version: 'latest available year, not shipped by the package (averageIntensity export)',
      licence: 'CC-BY-SA-4.0',
      valid_from: { first: '2023-01-01', last: '2023-01-01' },
      regions: 1,
      assets: 14,
    }),
  assets_without_grid_factor: 0,
  engine_versions: [
    { version: '4.6.0', assets: 580 },
    { version: '4.5.0', assets: 32 },
  ],
  empty: false,
  by_category: rows(CATEGORIES, TOTAL, 612),
  by_country: rows(['Germany (DE)', 'Austria (AT)', 'Switzerland (CH)', 'Poland (PL)', 'China (CN) 北京办公室', 'France (FR)'], TOTAL, 612),
  trend: {
    granularity: 'month',
    buckets: Array.from({ length: 12 }, (_, i) => ({
      period: `2025-${String(i + 1).padStart(2, '0')}`,
      label: `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][i]} 2025`,
      total_kg_co2e: Math.round((17_800 - i * 420 + (i % 3) * 900) * 10) / 10,
    })),
  },
  notes: ['Use-phase emissions assume the grid intensity of each asset’s country of use in the calculation year.'],
  sandbox: false,
};

export const summaryView: ReportView = {
  ...base,
  type: 'sustainability_summary',
  savings: {
    reuse_kg_co2e: 21_480.5,
    refurbishment_kg_co2e: 9_312.8,
    basis: '84 laptops reused internally and 31 refurbished and resold instead of replaced with new devices.',
  },
  sbti_targets: [
    { name: 'Near-term target', base_year: 2021, target_year: 2030, reduction_pct: 42, scope: 'Scope 1 and 2' },
    { name: 'Supplier engagement', base_year: 2021, target_year: 2027, reduction_pct: 25, scope: 'Scope 3, purchased goods' },
  ],
};

export const hotspotView: ReportView = {
  ...base,
  type: 'hotspot_analysis',
  hotspots: {
    criterion: { id: 'gwp', name: 'GWP', meaning: 'global warming', unit: 'kg CO2e' },
    assets_without_impacts: 0,
    categories: ranked(base.by_category.slice(0, 6)),
    categories_count: 10,
    models_count: 37,
    models: ranked(
      rows(
        [
          'Dell Latitude 5440',
          'HP EliteBook 840 G10',
          'Lenovo ThinkPad T14 Gen 4',
          'Dell OptiPlex 7010',
          'Apple MacBook Pro 14 (M3)',
          'Dell P2423D',
          'Samsung Galaxy S23',
        ],
        TOTAL * 0.7,
        420,
      ),
    ),
    components: [
      { component: 'Mainboard and integrated circuits', value: 58_212.4, share_pct: 31.6 },
      { component: 'Display panel', value: 31_004.9, share_pct: 16.8 },
      { component: 'Electricity in use', value: 44_987.1, share_pct: 24.4 },
      { component: 'Battery', value: 9_120.3, share_pct: 4.9 },
      { component: 'Chassis and enclosure', value: 12_400.8, share_pct: 6.7 },
    ],
    actions: [
      {
        action: 'Extend the life of 120 laptops by one year',
        saving: 8_940.0,
        basis: 'Production emissions spread over five instead of four years of use.',
      },
      {
        action: 'Buy refurbished instead of new for the next 40 desktops',
        saving: 6_120.5,
        basis: 'Refurbished desktops carry about 20 % of a new desktop’s production emissions.',
      },
      {
        action: 'Switch 35 monitors to power-saving mode',
        saving: 1_210.2,
        basis: 'Measured standby draw 0.3 W instead of 8 W, 2,000 idle hours a year.',
      },
    ],
  },
};

/** An organisation without assets in the period: the report says so instead of drawing empty charts. */
export const emptyReportView: ReportView = {
  ...base,
  type: 'sustainability_summary',
  organization_name: 'Müller GmbH 北京',
  asset_count: 0,
  calculation_count: 0,
  totals: { production_kg: 0, transport_kg: 0, use_phase_kg: 0, end_of_life_kg: 0, total_kg_co2e: 0 },
  empty: true,
  by_category: [],
  by_country: [],
  trend: { granularity: 'month', buckets: [] },
  confidence_mix: [],
  grid_factor_sources: [],
  engine_versions: [],
  notes: [],
};

/** A large report: every one of the 48 categories, 200 countries, eight years by quarter. */
export function largeReportView(): ReportView {
  const categories = Array.from(
    { length: 48 },
    (_, i) => `${CATEGORIES[i % CATEGORIES.length]} class ${Math.floor(i / CATEGORIES.length) + 1}`,
  );
  const countries = Array.from({ length: 200 }, (_, i) => `Country ${String(i + 1).padStart(3, '0')}`);
  return {
    ...summaryView,
    date_from: '2018-01-01',
    period_semantics: summaryView.period_semantics.replace('1 January 2025', '1 January 2018'),
    by_category: rows(categories, TOTAL, 6120),
    by_country: rows(countries, TOTAL, 6120),
    trend: {
      granularity: 'quarter',
      buckets: Array.from({ length: 32 }, (_, i) => ({
        period: `${2018 + Math.floor(i / 4)}-Q${(i % 4) + 1}`,
        label: `Q${(i % 4) + 1} ${2018 + Math.floor(i / 4)}`,
        total_kg_co2e: 7500 + ((i * 37) % 11) * 360,
      })),
    },
  };
}
