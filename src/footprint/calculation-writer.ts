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

/**
 * Stores calculation records off the request's hot path: records are queued with their id
 * already assigned (the response cites it) and written in batches, one transaction per batch.
 * `flush()` is awaited before anything reads calculations back (certificates) and at shutdown.
 */
export class CalculationWriter {
  private queue: (CalculationRecord & { id: string; created_at: Date })[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly options = { maxBatch: 500, maxDelayMs: 25 },
  ) {}

  enqueue(record: CalculationRecord): string {
    const id = randomUUID();
    this.queue.push({ ...record, id, created_at: new Date() });
    if (this.queue.length >= this.options.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs);
    return id;
  }

  /** Writes everything queued so far; resolves when it is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
  }

  private async write(batch: (CalculationRecord & { id: string; created_at: Date })[]): Promise<void> {
    const rows = batch.map(({ factors: _factors, ...row }) => ({ asset_id: null, ...row }));
    const factors = batch.flatMap((r) => r.factors.map((f) => ({ ...f, calculation_id: r.id, org_id: r.org_id })));
    try {
      // One statement for the whole batch (both tables), so it is atomic without an interactive
      // transaction and bypasses the per-row work of Prisma's query compiler on the hot path.
      await this.prisma.$executeRawUnsafe(INSERT_BATCH, JSON.stringify(rows), JSON.stringify(factors));
    } catch (error) {
      // A failed batch is logged with its ids; it must not take the service down.
      this.log.error({ err: error, calculation_ids: batch.map((r) => r.id) }, 'failed to store calculations');
    }
  }
}
