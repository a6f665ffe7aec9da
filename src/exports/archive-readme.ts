/**
 * README.md of the export archive: what the files are, their format, and what a row of the asset
 * inventory means — so the archive can be understood without the service or its documentation.
 */
import { ASSET_STATUSES } from '../assets/status.ts';
import { EXPORT_TABLES, REDACTED_COLUMNS, type ExportTable } from './tables.ts';

/** One line per table, as in docs/data-model.md. */
const TABLE_DESCRIPTIONS: Record<ExportTable, string> = {
  organizations: 'the organisation: name, plan, hardware_accounting (Scope 3 category 2 or 1 of acquired hardware)',
  profiles: 'people of the organisation (console users)',
  api_keys: 'API keys: prefix, name, plan, environment (live/test), bi_enabled, org_context, revoked_at (the key hash is redacted)',
  assets: 'the asset inventory, one row per device (see "The asset inventory" below)',
  asset_events: 'status changes and other history of an asset (asset.created, asset.status_changed with from_value/to_value)',
  asset_imports: 'one row per JSON/CSV/CLI import: counts and per-row errors',
  calculations: 'every stored calculation: inputs, full result, engine version, confidence, phase totals, grid factor',
  calculation_factors: 'every emission factor a calculation used, with its role (provenance)',
  certificates: 'CO2 impact certificates: number, calculation, signed payload, content hash',
  reports: 'generated PDF reports (type, period, hash)',
  export_jobs: 'organisation exports (this one included, still processing): state, scope, counts, hashes, manifest',
  audit_log: 'audit events (downloads of exports, OData queries, scenario runs, …)',
  webhook_endpoints: 'outbound notification endpoints (the signing secret is redacted)',
  webhook_deliveries: 'delivery attempts to those endpoints',
  erasure_connections:
    'the connection to the erasure console (its API key is stored encrypted and exported as null; api_key_hint shows its last four characters)',
  erasure_sync_runs: 'one row per erasure-report synchronisation',
  erasure_reports: 'each erasure report seen, its item status and the asset/calculation it produced',
  sbti_targets: 'science-based reduction targets',
  monthly_emissions: "the assets' active-calculation figures summed by month (of purchase, else of recording), category and country",
  scenario_runs: 'what-if scenario executions (simulateRefurbish) and their results',
  usage_counters: "request counters per quota window of the organisation's API keys",
  console_sessions: 'sign-in sessions of the API-key console (the token hash is redacted)',
  contractual_instruments:
    'contractual instruments for market-based Scope 2: supplier-specific factors and energy attribute certificates, per country and period',
};

export interface ReadmeInfo {
  orgId: string;
  generatedAt: string;
  softwareVersion: string;
  tables: readonly ExportTable[];
  /** true: all tables read from one database snapshot. */
  snapshot: boolean;
}

/** "api_keys.key (SHA-256 hash of the API key)", … for the redacted columns of the given tables. */
export function redactionList(tables: readonly ExportTable[]): string[] {
  return tables.flatMap((table) => Object.entries(REDACTED_COLUMNS[table] ?? {}).map(([column, what]) => `${table}.${column} (${what})`));
}

export function consistencyNote(snapshot: boolean): string {
  return snapshot
    ? 'All tables were read from one database snapshot: the files agree with each other as of one moment.'
    : 'Tables were read page by page while the service kept running (embedded database): rows written during the export may or may not be included.';
}

export function renderArchiveReadme(info: ReadmeInfo): string {
  const excluded = EXPORT_TABLES.filter((t) => !info.tables.includes(t));
  const redactions = redactionList(info.tables);
  const hasAssets = info.tables.includes('assets');
  const lines = [
    '# Organisation export',
    '',
    `Every row the Lifecycle Carbon Footprint Service stores for organisation \`${info.orgId}\` in the`,
    `tables below, generated at ${info.generatedAt} by version ${info.softwareVersion} of the service.`,
    '',
    '## Files',
    '',
    '| file | content |',
    '|---|---|',
    ...info.tables.map((t) => `| \`${t}.jsonl\` | ${TABLE_DESCRIPTIONS[t]} |`),
    '| `manifest.json` | schema_version, generated_at, org_id, software_version, record_counts (rows per table), file_hashes (SHA-256 per file), notes |',
    '| `README.md` | this file |',
    '',
    excluded.length
      ? `Not included (excluded by the export's scope): ${excluded.map((t) => `\`${t}\``).join(', ')}.`
      : `All ${EXPORT_TABLES.length} organisation-owned tables are included. Global reference data (the product catalogue, emission factors, regions, categories) is not: rows refer to it by id (product_id, grid_factor_id, factor_id).`,
    '',
    '## Format',
    '',
    '- JSON Lines: one file per table, UTF-8, one JSON object per row, each line ended by `\\n`. A table',
    '  without rows is an empty file; `manifest.json` `record_counts` gives the number of lines.',
    '- Keys are the column names, exactly as in the database and the API (snake_case); every column is',
    '  present, null when empty.',
    '- Timestamps are ISO 8601 in UTC with milliseconds (`2025-03-01T12:34:56.789Z`); calendar dates',
    '  (`purchase_date`, `month`, …) are `YYYY-MM-DD`.',
    '- JSON columns (`specs`, `inputs`, `result`, `payload`, …) are nested objects or arrays, not strings;',
    '  list columns are arrays; ids are UUID strings; enumerations are strings; numbers are JSON numbers.',
    '- Rows are in no guaranteed order.',
    `- ${consistencyNote(info.snapshot)}`,
    '',
    'Reading: `jq -c . assets.jsonl`, pandas `pd.read_json("assets.jsonl", lines=True)`, DuckDB',
    "`SELECT * FROM read_json_auto('assets.jsonl')`.",
    '',
    '## Redacted values',
    '',
    redactions.length
      ? `These columns are present but always null, so the archive holds no credential: ${redactions.join('; ')}.`
      : 'No selected table holds a credential; nothing is redacted.',
    '',
    ...(hasAssets ? assetSection() : []),
    '## Verifying the files',
    '',
    '`manifest.json` lists the SHA-256 (hex) of every other file as stored in this archive (uncompressed',
    'bytes). The manifest cannot contain its own hash; the SHA-256 of the whole ZIP is on the export job',
    '(`sha256` of `GET /v1/org/export/jobs/{id}`, and of the download answer), which covers the manifest too.',
    '',
    "    sha256sum export.zip                  # compare with the job's sha256",
    '    unzip export.zip -d export && cd export',
    '    sha256sum assets.jsonl                # compare with file_hashes["assets.jsonl"]',
    '    jq -r \'.file_hashes | to_entries[] | "\\(.value)  \\(.key)"\' manifest.json | sha256sum -c -',
    '    wc -l assets.jsonl                    # equals record_counts["assets"]',
    '',
  ];
  return lines.join('\n');
}

function assetSection(): string[] {
  return [
    '## The asset inventory: `assets.jsonl`',
    '',
    '**A row is one physical device** the organisation owns or has owned — a laptop, monitor, phone,',
    'server, printer, … — identified within the organisation by `serial_number` (unique per',
    'organisation: importing the same serial number again updates the row, it never adds a second one).',
    "`id` is the asset's id in the service (GraphQL `asset(id:)`). The device is described by `brand`,",
    "`mpn` (part number) and/or `model`, `category` (one of the service's device categories), `country`",
    '(where it is used: ISO 3166-1 alpha-2 such as `DE`, or ISO 3166-2 such as `US-CA`), `purchase_date`,',
    '`specs` (spec values supplied for this device, overriding catalogue values), `product_id` (the',
    'matched catalogue product, or null when estimated from category defaults) and `source` (how the',
    'row came in: `import:json`, `import:csv`, `seed-demo`, …).',
    '',
    '### Status',
    '',
    "`status` is the device's current state; its history is in `asset_events.jsonl` (`asset.created`,",
    '`asset.status_changed` with `from_value`, `to_value` and `created_at`).',
    '',
    '| status | meaning |',
    '|---|---|',
    ...Object.entries(ASSET_STATUSES).map(([status, meaning]) => `| \`${status}\` | ${meaning} |`),
    '',
    'The status does not change the figures. A device that was resold, recycled or disposed of keeps its',
    'row and its lifecycle total, so the file shows everything the organisation has owned. Which statuses',
    "to count is the reader's choice (still held: `in_stock`, `in_use`, `in_repair`, `refurbished`).",
    '',
    '### Figures and how they relate to calculations',
    '',
    "`total_kg_co2e`, `production_kg` and `use_phase_kg` (kg CO2e) are copies of the asset's **active",
    "calculation**: the row of `calculations.jsonl` whose `id` equals the asset's `active_calculation_id`",
    "(its `asset_id` is the asset's `id`). They are copied when that calculation becomes active (at import)",
    'and are not recomputed afterwards. The calculation row holds the whole breakdown — `production_kg`,',
    '`transport_kg`, `use_phase_kg`, `end_of_life_kg` and their sum `total_kg_co2e` (up to rounding) —',
    'plus `engine_version`, `confidence`, the inputs, the full `result` (methodology, assumptions) and the',
    'grid factor of the country of use (`grid_factor_id`; every factor used, with its role, is in',
    "`calculation_factors.jsonl`). The asset's `transport_kg`, `end_of_life_kg`, `annual_kwh`, `lifetime_years`,",
    '`uncertainty_pct` and `calculated_at` are copied from the same calculation for the period inventory.',
    '`adpe_kg_sb_eq` (abiotic depletion of elements, kg Sb eq) and `pe_mj` (primary energy, MJ) are the',
    "whole-life totals of the calculation's `result.impacts`, which holds GWP, ADPe and PE per phase with",
    'their uncertainty and sources; they are null for a calculation stored before ADPe and PE were. The',
    'calculation row has the same per phase and whole-life as columns (`adpe_production_kg_sb_eq`,',
    '`adpe_transport_kg_sb_eq`, `adpe_use_phase_kg_sb_eq`, `adpe_end_of_life_kg_sb_eq`, `adpe_kg_sb_eq`, `pe_production_mj`,',
    '`pe_transport_mj`, `pe_use_phase_mj`, `pe_end_of_life_mj`, `pe_mj`; all null then). With',
    '`active_calculation_id` null the asset has no figures (null).',
    '',
    'Other rows of `calculations.jsonl` are not additional emissions of the inventory: earlier calculations',
    'of a re-imported asset (same `asset_id`, no longer active) are its history; rows with a null `asset_id`',
    "are footprint requests made with the organisation's API keys (`api_key_id`) and savings or",
    'refurbishment calculations (`kind`). Do not add them to the asset totals.',
    '',
    '### Lifecycle totals, not a reporting-period inventory',
    '',
    "Each asset's `total_kg_co2e` estimates the device's **whole life cycle**: production, transport to",
    'the country of use, electricity over its expected lifetime in that country, and end of life (cradle',
    'to grave). Summing `total_kg_co2e` over the rows gives the current lifecycle total of the inventory —',
    'the figure GraphQL `organization { total_kg_co2e }` reports, over all assets whatever their status —',
    'and **not an inventory for a reporting period**: the sum is not allocated to years (production',
    'happened when the device was made, use spreads over its lifetime), and it changes when assets are',
    'imported again. Period figures need an allocation this archive does not make (for example over the',
    'lifetime from `purchase_date`). `monthly_emissions.jsonl` groups the same whole-life figures by the',
    'month of purchase (else of recording), category and country: a grouping, not such an allocation. Its',
    'ADPe and PE columns sum only the `impacts_asset_count` assets whose calculation has them (null when none has).',
    'Scenario results (`scenario_runs.jsonl`) are what-if estimates; a negative delta is emission',
    'avoided in the scenario, not a deduction from the inventory.',
    '',
  ];
}
