import { randomUUID } from 'node:crypto';
import type { PrismaClient, Prisma } from '../db/database.ts';
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
  inputs: Prisma.InputJsonValue;
  result: Prisma.InputJsonValue;
  grid_factor_id: string | null;
  /** Every emission factor used, by role ('use_grid', 'reuse_grid'). */
  factors: { factor_id: string; role: string }[];
}

const INSERT_BATCH = `
WITH inserted AS (
  INSERT INTO calculations (id, org_id, asset_id, api_key_id, kind, engine_version, country, category, product_id, confidence,
    total_kg_co2e, production_kg, transport_kg, use_phase_kg, end_of_life_kg, inputs, result, grid_factor_id, created_at)
  SELECT id, org_id, asset_id, api_key_id, kind::"CalculationKind", engine_version, country, category, product_id, confidence::"Confidence",
    total_kg_co2e, production_kg, transport_kg, use_phase_kg, end_of_life_kg, inputs, result, grid_factor_id, created_at
  FROM json_to_recordset($1::json) AS r(id uuid, org_id uuid, asset_id uuid, api_key_id uuid, kind text, engine_version text, country text,
    category text, product_id uuid, confidence text, total_kg_co2e float8, production_kg float8, transport_kg float8, use_phase_kg float8,
    end_of_life_kg float8, inputs jsonb, result jsonb, grid_factor_id uuid, created_at timestamptz)
  RETURNING id
)
INSERT INTO calculation_factors (calculation_id, factor_id, role, org_id)
SELECT f.calculation_id, f.factor_id, f.role, f.org_id
FROM json_to_recordset($2::json) AS f(calculation_id uuid, factor_id uuid, role text, org_id uuid)
JOIN inserted ON inserted.id = f.calculation_id`;

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
