import { randomUUID } from 'node:crypto';
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
}

/** A calculation row as stored: the record plus what the writer assigns. */
export type CalculationRow = Omit<CalculationRecord, 'factors' | 'asset_id'> & { id: string; asset_id: string | null; created_at: Date };
export type CalculationColumn = keyof CalculationRow;

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

const INSERT_BATCH = `
WITH inserted AS (
  ${insertCalculations(`json_to_recordset($1::json) AS r(${calculationRecordset()})`, 'r')}
  RETURNING id
)
${insertCalculationFactors(`SELECT f.calculation_id, f.factor_id, f.role, f.org_id
  FROM json_to_recordset($2::json) AS f(calculation_id uuid, factor_id uuid, role text, org_id uuid)
  JOIN inserted ON inserted.id = f.calculation_id`)}`;

type QueuedRecord = CalculationRecord & { id: string; created_at: Date };

interface Pending {
  record: QueuedRecord;
  /** The id once the row is committed, null when it could not be stored. */
  settle: (id: string | null) => void;
}

/**
 * Stores calculation records by group commit: `store()` resolves only once the row is committed,
 * so every calculation id a caller cites survives a crash. One batch is written at a time; rows
 * arriving meanwhile form the next batch, which is written as soon as the current one ends.
 * A failed batch is retried row by row, so one bad row never costs another caller its record.
 */
export class CalculationWriter {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private unsettled = 0;
  private failed = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly options = { maxBatch: 500 },
  ) {}

  /** Records stored but not yet committed (or failed): queued or in the batch being written. */
  get backlog(): number {
    return this.unsettled;
  }

  /** Records that could not be stored since start (each logged). */
  get failures(): number {
    return this.failed;
  }

  /** Resolves with the new calculation's id once it is committed, or null when storing it failed (logged). */
  store(record: CalculationRecord): Promise<string | null> {
    return new Promise((resolve) => {
      this.unsettled++;
      const settle = (id: string | null) => {
        this.unsettled--;
        if (id === null) this.failed++;
        resolve(id);
      };
      this.queue.push({ record: { ...record, id: randomUUID(), created_at: new Date() }, settle });
      if (this.writing || this.scheduled) return;
      // Idle: write on the next turn of the event loop, so rows queued by the same burst of I/O share the statement.
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.writeNext();
      });
    });
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
      await this.insert(batch.map((p) => p.record));
      for (const p of batch) p.settle(p.record.id);
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

  private insert(batch: QueuedRecord[]): Promise<number> {
    const rows = batch.map(({ factors: _factors, ...row }) => ({ asset_id: null, ...row }));
    const factors = batch.flatMap((r) => r.factors.map((f) => ({ ...f, calculation_id: r.id, org_id: r.org_id })));
    // One statement for the whole batch (both tables), so it is atomic without an interactive
    // transaction and bypasses the per-row work of Prisma's query compiler on the hot path.
    return this.prisma.$executeRawUnsafe(INSERT_BATCH, JSON.stringify(rows), JSON.stringify(factors));
  }
}
