import { invalidParameter } from '../errors/api-error.ts';

/**
 * The organisation-owned tables of the export, in the order of docs/data-model.md (and of the archive): the
 * spec's 22, then contractual_instruments (issue 41), because the export holds every row an organisation owns.
 */
export const EXPORT_TABLES = [
  'organizations',
  'profiles',
  'api_keys',
  'assets',
  'asset_events',
  'asset_imports',
  'calculations',
  'calculation_factors',
  'certificates',
  'reports',
  'export_jobs',
  'audit_log',
  'webhook_endpoints',
  'webhook_deliveries',
  'erasure_connections',
  'erasure_sync_runs',
  'erasure_reports',
  'sbti_targets',
  'monthly_emissions',
  'scenario_runs',
  'usage_counters',
  'console_sessions',
  'contractual_instruments',
] as const;

export type ExportTable = (typeof EXPORT_TABLES)[number];

/** The column that ties a row to its organisation: the organisation's own id, org_id everywhere else. */
export const ownerColumn = (table: ExportTable): string => (table === 'organizations' ? 'id' : 'org_id');

/**
 * Columns written as null: credentials, or hashes of credentials that would let anyone holding
 * the archive test guesses offline, or open them with the service's key. Everything else the
 * organisation stored is exported as is.
 */
export const REDACTED_COLUMNS: Readonly<Partial<Record<ExportTable, Readonly<Record<string, string>>>>> = {
  api_keys: { key: 'SHA-256 hash of the API key' },
  webhook_endpoints: { secret: 'webhook signing secret' },
  console_sessions: { token_hash: 'hash of the console session token' },
  erasure_connections: { api_key_encrypted: 'erasure-console API key (encrypted at rest)' },
};

const KNOWN: ReadonlySet<string> = new Set(EXPORT_TABLES);

export const isExportTable = (name: string): name is ExportTable => KNOWN.has(name);

export interface ExportScope {
  include?: string[] | null;
  exclude?: string[] | null;
}

/**
 * The tables an export writes: `include` is a whitelist (absent or null: all of them), `exclude` is
 * removed from it afterwards. Names are exact (the table names above); repeating one is harmless.
 * The result keeps the order of EXPORT_TABLES, whatever order the lists use.
 */
export function resolveExportScope(scope: ExportScope | undefined): ExportTable[] {
  const include = checkNames(scope?.include, 'scope.include');
  const exclude = new Set(checkNames(scope?.exclude, 'scope.exclude'));
  const included = include ? new Set(include) : KNOWN;
  const tables = EXPORT_TABLES.filter((table) => included.has(table) && !exclude.has(table));
  if (tables.length === 0) {
    throw invalidParameter('scope', 'selects no table: include and exclude leave nothing to export');
  }
  return tables;
}

function checkNames(names: string[] | null | undefined, field: string): ExportTable[] | undefined {
  if (names === undefined || names === null) return undefined;
  return names.map((name, index) => {
    if (!isExportTable(name)) {
      throw invalidParameter(`${field}[${index}]`, `unknown table ${JSON.stringify(name)}; the tables are: ${EXPORT_TABLES.join(', ')}`);
    }
    return name;
  });
}
