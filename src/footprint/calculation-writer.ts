import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';

export interface CalculationRecord {
  org_id: string;
  api_key_id: string | null;
  asset_id?: string | null;
  kind: 'footprint' | 'savings' | 'refurbishment';
  engine_version: string;
  country: string;
  category: string;
  product_id: string | null;
  confidence: 'manufacturer_verified' | 'estimated_high' | 'estimated_medium' | 'estimated_low';
  total_kg_co2e: number;
  production_kg: number;
  transport_kg: number;
  use_phase_kg: number;
  end_of_life_kg: number;
  /** The request and the answer (with engine detail worth citing), stored as JSON. */
  inputs: object;
  result: object;
  grid_factor_id: string | null;
  /** Every emission factor used, by role ('use_grid', 'reuse_grid'). */
  factors: { factor_id: string; role: string }[];
  /** When it was calculated: stored as created_at if this is the first time (see calculationId). */
  created_at: Date;
  /**
   * What the calculation is for beyond its content, part of its identity but not stored: an asset
   * import's `asset:<serial_number>`, so each asset has a row of its own (calculations.asset_id and
   * its certificates name that asset).
   */
  scope?: string;
}

/** A calculation row as stored: the record plus what the writer assigns. */
export type CalculationRow = Omit<CalculationRecord, 'factors' | 'asset_id' | 'scope'> & { id: string; asset_id: string | null };
export type CalculationColumn = keyof CalculationRow;

/** A committed calculation: its id and when it was first calculated (its row's created_at). */
export interface StoredCalculation {
  id: string;
  calculated_at: Date;
}

/**
 * The content address of a calculation: a UUID (version 8, RFC 9562) from the first 16 bytes of the
 * SHA-256 of the canonical JSON (RFC 8785) of everything its row depends on: organisation, kind,
 * inputs (null values dropped: absent and null are the same request), engine version, device,
 * every emission factor (by id) and the whole answer but for calculated_at and calculation_id (so
 * also factor values and citations, catalogue data and engine detail), plus `scope`. Not part of it:
 * the key that asked (api_key_id: one organisation, one calculation) and when.
 */
export function calculationId(record: CalculationRecord): string {
  return new CalculationContent(record).id(record.scope);
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * A calculation's canonical JSON (calculationId) but for its scope: the members before the scope
 * already hashed, those after it as text. Records alike but for their scope (an import's assets of
 * one device) share one, so each further id costs the hash of its scope and the members after it,
 * not the canonical JSON of the whole answer.
 */
export class CalculationContent {
  private readonly head = createHash('sha256');
  private readonly headMembers: number;
  private readonly tail: string;
  private readonly tailMembers: number;

  /** `sameResult`: shared by records whose result is this one's (but calculated_at), whatever their inputs. */
  constructor(record: CalculationRecord, sameResult?: SameResult) {
    const { api_key_id: _key, created_at: _at, asset_id: _asset, scope: _scope, inputs, result, ...identity } = record;
    const { calculated_at: _calculatedAt, calculation_id: _id, ...answer } = result as Record<string, unknown>;
    const present = Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== null && v !== undefined));
    const canonical = (k: string, v: unknown) =>
      k === 'result' && sameResult ? (sameResult.canonical ??= canonicalize(v)) : canonicalize(v);
    // RFC 8785 of the top-level object, member by member (canonicalize skips undefined values and sorts by UTF-16 code units).
    const members = Object.entries({ ...identity, inputs: present, result: answer })
      .filter(([, v]) => v !== undefined)
      .sort(byKey)
      .map(([k, v]) => [k, `${canonicalize(k)}:${canonical(k, v)}`] as const);
    const before = members.filter(([k]) => k < 'scope').map(([, m]) => m);
    const after = members.filter(([k]) => k > 'scope').map(([, m]) => m);
    this.head.update(`{${before.join(',')}`);
    this.headMembers = before.length;
    this.tail = `${after.join(',')}}`;
    this.tailMembers = after.length;
  }

  /** The id of this content with `scope`. */
  id(scope: string | undefined): string {
    const members = scope === undefined ? 0 : 1;
    const middle = scope === undefined ? '' : `"scope":${canonicalize(scope)}`;
    const rest = `${this.headMembers && members + this.tailMembers ? ',' : ''}${middle}${members && this.tailMembers ? ',' : ''}${this.tail}`;
    const hash = this.head.copy().update(rest).digest();
    hash[6] = (hash[6]! & 0x0f) | 0x80;
    hash[8] = (hash[8]! & 0x3f) | 0x80;
    const hex = hash.toString('hex', 0, 16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }
}

/**
 * A slot shared by records that are the same but for their scope, created_at, api_key_id and their
 * result's calculated_at (an import's assets of one device): their ids come from the first one's
 * CalculationContent, and a batch statement sends their inputs and result once.
 */
export interface AlikeRecords {
  content?: CalculationContent;
  /**
   * Shared further, by records whose inputs differ but not their result (an import's assets of one
   * device bought on different days): their ids hash its canonical JSON once, a batch statement sends it once.
   */
  sameResult?: SameResult;
}

/** The canonical JSON of a result that several records' contents share, filled in by the first. */
export interface SameResult {
  canonical?: string;
}

/**
 * The columns of `calculations` that every path storing a calculation writes, with the type their
 * JSON values are read as (json_to_recordset): the one list to extend when a column is added.
 */
const CALCULATION_COLUMNS = {
  id: 'uuid',
  org_id: 'uuid',
  asset_id: 'uuid',
  api_key_id: 'uuid',
  kind: '"CalculationKind"',
  engine_version: 'text',
  country: 'text',
  category: 'text',
  product_id: 'uuid',
  confidence: '"Confidence"',
  total_kg_co2e: 'float8',
  production_kg: 'float8',
  transport_kg: 'float8',
  use_phase_kg: 'float8',
  end_of_life_kg: 'float8',
  inputs: 'jsonb',
  result: 'jsonb',
  grid_factor_id: 'uuid',
  created_at: 'timestamptz',
} as const satisfies Record<CalculationColumn, string>;

const COLUMN_NAMES = Object.keys(CALCULATION_COLUMNS) as CalculationColumn[];

/** The column definitions of calculation rows for json_to_recordset: every column but those `except`ed. */
export function calculationRecordset(except: readonly CalculationColumn[] = []): string {
  return COLUMN_NAMES.filter((c) => !except.includes(c))
    .map((c) => `${c} ${CALCULATION_COLUMNS[c]}`)
    .join(', ');
}

/**
 * `INSERT INTO calculations … SELECT … FROM source`: each column is `alias.column` unless `set`
 * gives its SQL expression. Statements that store calculations in bulk (demo estates) build on this,
 * so they write the same columns as the writer.
 */
export function insertCalculations(source: string, alias: string, set: Partial<Record<CalculationColumn, string>> = {}): string {
  return `INSERT INTO calculations (${COLUMN_NAMES.join(', ')})
  SELECT ${COLUMN_NAMES.map((c) => set[c] ?? `${alias}.${c}`).join(', ')}
  FROM ${source}`;
}

/** `INSERT INTO calculation_factors` of the rows `select` gives, in this column order. */
export const insertCalculationFactors = (select: string): string =>
  `INSERT INTO calculation_factors (calculation_id, factor_id, role, org_id)
  ${select}`;

/**
 * Inserts the rows whose id is new (ON CONFLICT: atomic, the first row wins and keeps its
 * created_at) with their factors, and answers every row of the batch with its created_at: inserted
 * ones from RETURNING, existing ones from the table (the statement's snapshot does not see its own
 * inserts, so each id appears once). A row another transaction committed while this one waited on
 * it appears in neither: the writer reads those again (FIND). Rows' inputs come once per content ($3,
 * see insert), their results once per distinct result ($4: an import's assets of one device bought on
 * different days have a content each, but one result when the date does not date the device), with
 * each row's calculated_at put back into its result. jsonb parameters: parsed once, where
 * json_to_recordset into jsonb columns parses each member again (~100 µs per 6.5 kB result).
 */
const INSERT_BATCH = `
WITH contents AS (
  SELECT c.content, c.inputs, s.result
  FROM jsonb_to_recordset($3::jsonb) AS c(content int, inputs jsonb, result int)
  JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS s(result, n) ON s.n = c.result + 1
),
r AS (
  SELECT r.*, c.inputs,
    CASE WHEN r.calculated_at IS NULL THEN c.result ELSE c.result || jsonb_build_object('calculated_at', r.calculated_at) END AS result
  FROM json_to_recordset($1::json) AS r(${calculationRecordset(['inputs', 'result'])}, content int, calculated_at jsonb)
  JOIN contents c ON c.content = r.content
),
inserted AS (
  ${insertCalculations('r', 'r')}
  ON CONFLICT (id) DO NOTHING
  RETURNING id, created_at
),
factors AS (
  ${insertCalculationFactors(`SELECT f.calculation_id, f.factor_id, f.role, f.org_id
  FROM json_to_recordset($2::json) AS f(calculation_id uuid, factor_id uuid, role text, org_id uuid)
  JOIN inserted ON inserted.id = f.calculation_id`)}
)
SELECT id::text, created_at FROM inserted
UNION ALL
SELECT c.id::text, c.created_at FROM calculations c JOIN r ON r.id = c.id`;

const FIND = `SELECT id::text, created_at FROM calculations WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`;

type QueuedRecord = CalculationRecord & { id: string; alike?: AlikeRecords };

interface Pending {
  record: QueuedRecord;
  /** The stored calculation once its row is committed, null when it could not be stored. */
  settle: (stored: StoredCalculation | null) => void;
}

/**
 * Stores calculation records by group commit, content-addressed (calculationId): `store()`
 * resolves only once the row is committed, so every calculation id a caller cites survives a
 * crash. A calculation stored before (by anyone) is not stored again: its id and first
 * created_at are answered, and ids this process saw committed are remembered (`remember` of them,
 * most recent first), so repeating one costs no statement at all. Rows are never deleted but with
 * their organisation, so a remembered id stays true. One batch is written at a time; rows
 * arriving meanwhile form the next batch (one row per id), which is written as soon as the
 * current one ends. A failed batch is retried row by row, so one bad row never costs another
 * caller its record.
 */
export class CalculationWriter {
  private queue: Pending[] = [];
  /** Calculations waiting for their row (queued or being written), by id: a repeat joins them. */
  private readonly pending = new Map<string, Promise<StoredCalculation | null>>();
  /** Committed calculations: id → created_at (ms), oldest first. */
  private readonly committed = new Map<string, number>();
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private unsettled = 0;
  private failed = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly options: { maxBatch: number; remember?: number } = { maxBatch: 500 },
  ) {}

  /** Records stored but not yet committed (or failed): queued or in the batch being written. */
  get backlog(): number {
    return this.unsettled;
  }

  /** Records that could not be stored since start (each logged). */
  get failures(): number {
    return this.failed;
  }

  /**
   * Resolves with the calculation's id and first created_at once its row is committed (now, or
   * by an earlier store), or null when storing it failed (logged). Records passed the same `alike`
   * share the content its first record fills in.
   */
  store(record: CalculationRecord, alike?: AlikeRecords): Promise<StoredCalculation | null> {
    let id: string;
    try {
      id = alike ? (alike.content ??= new CalculationContent(record, alike.sameResult)).id(record.scope) : calculationId(record);
    } catch (error) {
      // Text no JSON can carry (a lone surrogate): it has no address, nor could it be stored.
      this.failed++;
      this.log.error({ err: error, org_id: record.org_id }, 'failed to store calculation');
      return Promise.resolve(null);
    }
    const at = this.committed.get(id);
    if (at !== undefined) {
      // Most recently used last, so the oldest is forgotten first.
      this.committed.delete(id);
      this.committed.set(id, at);
      return Promise.resolve({ id, calculated_at: new Date(at) });
    }
    const waiting = this.pending.get(id);
    if (waiting) return waiting;
    const stored = new Promise<StoredCalculation | null>((resolve) => {
      this.unsettled++;
      const settle = (result: StoredCalculation | null) => {
        this.unsettled--;
        this.pending.delete(id);
        if (result === null) this.failed++;
        else this.remember(result);
        resolve(result);
      };
      this.queue.push({ record: { ...record, id, alike }, settle });
      if (this.writing || this.scheduled) return;
      // Idle: write on the next turn of the event loop, so rows queued by the same burst of I/O share the statement.
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.writeNext();
      });
    });
    this.pending.set(id, stored);
    return stored;
  }

  private remember({ id, calculated_at }: StoredCalculation): void {
    this.committed.set(id, calculated_at.getTime());
    if (this.committed.size > (this.options.remember ?? 20_000)) this.committed.delete(this.committed.keys().next().value!);
  }

  /** Resolves when everything queued so far has been written (or has failed); used at shutdown. */
  async flush(): Promise<void> {
    while (this.queue.length || this.writing) {
      this.writeNext();
      await this.writing;
    }
  }

  private writeNext(): void {
    if (this.writing || !this.queue.length) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.writing = this.write(batch).finally(() => {
      this.writing = undefined;
      this.writeNext();
    });
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const rows = await this.insert(batch.map((p) => p.record));
      for (const p of batch) {
        const at = rows.get(p.record.id);
        // Only if its organisation was deleted meanwhile: failed, not guessed.
        if (at === undefined)
          this.log.error({ calculation_id: p.record.id, org_id: p.record.org_id }, 'calculation neither stored nor found');
        p.settle(at === undefined ? null : { id: p.record.id, calculated_at: at });
      }
    } catch (error) {
      if (batch.length > 1) {
        this.log.warn({ err: error, rows: batch.length }, 'calculation batch failed; retrying its rows one by one');
        for (const p of batch) await this.write([p]);
        return;
      }
      const { id, org_id } = batch[0]!.record;
      this.log.error({ err: error, calculation_id: id, org_id }, 'failed to store calculation');
      batch[0]!.settle(null);
    }
  }

  /** Each row's created_at by id, for every row of the batch that is committed now. */
  private async insert(batch: QueuedRecord[]): Promise<Map<string, Date>> {
    // Records alike (an import's assets of one device) differ in inputs and result only by the
    // result's calculated_at: their inputs are sent (and parsed) once, not per row. Their result
    // (some kB) is sent once for all records sharing it (sameResult), whatever their inputs.
    const results: object[] = [];
    const resultOf = new Map<SameResult, number>();
    const contents: { content: number; inputs: object; result: number }[] = [];
    const contentOf = new Map<AlikeRecords, number>();
    const rows = batch.map(({ factors: _factors, scope: _scope, alike, inputs, result, ...row }) => {
      const { calculated_at, ...rest } = result as Record<string, unknown>;
      const apart = calculated_at instanceof Date;
      let content = alike && apart ? contentOf.get(alike) : undefined;
      if (content === undefined) {
        const same = apart ? alike?.sameResult : undefined;
        let stored = same ? resultOf.get(same) : undefined;
        if (stored === undefined) {
          stored = results.push(apart ? rest : result) - 1;
          if (same) resultOf.set(same, stored);
        }
        content = contents.push({ content: contents.length, inputs, result: stored }) - 1;
        if (alike && apart) contentOf.set(alike, content);
      }
      return { asset_id: null, ...row, content, calculated_at: apart ? calculated_at : undefined };
    });
    const factors = batch.flatMap((r) => r.factors.map((f) => ({ ...f, calculation_id: r.id, org_id: r.org_id })));
    // One statement for the whole batch (both tables), so it is atomic without an interactive
    // transaction and bypasses the per-row work of Prisma's query compiler on the hot path.
    type Found = { id: string; created_at: Date | string }[];
    const found = await this.prisma.$queryRawUnsafe<Found>(
      INSERT_BATCH,
      JSON.stringify(rows),
      JSON.stringify(factors),
      JSON.stringify(contents),
      JSON.stringify(results),
    );
    if (found.length < batch.length) {
      const seen = new Set(found.map((f) => f.id));
      const missing = batch.filter((r) => !seen.has(r.id)).map((r) => r.id);
      found.push(...(await this.prisma.$queryRawUnsafe<Found>(FIND, JSON.stringify(missing))));
    }
    return new Map(found.map((f) => [f.id, new Date(f.created_at)]));
  }
}
