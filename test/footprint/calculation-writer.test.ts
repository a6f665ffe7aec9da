import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountingTestApp } from '../support/counting-app.ts';
import { TEST_DATABASE_KIND } from '../support/database.ts';
import type { TestApp } from '../support/test-app.ts';
import type { StatementLog } from '../support/counting-database.ts';
import { authenticate } from '../../src/auth/caller.ts';
import { CalculationWriter, type CalculationRecord, type StoredCalculation } from '../../src/footprint/calculation-writer.ts';

// Group commit of calculation records: a caller gets an id only once its row is committed, and a
// row the database refuses costs nobody else their record.
describe(`calculation writer on ${TEST_DATABASE_KIND}`, () => {
  let t: TestApp & { statements: StatementLog };
  let orgA: string;
  let orgB: string;

  beforeAll(async () => {
    t = await createCountingTestApp();
    orgA = (await t.createOrg('business', 'Careless Org')).id;
    orgB = (await t.createOrg('business', 'Good Org')).id;
  });
  afterAll(() => t.close());

  const stored = (calculations: ({ id: string } | string | null)[]) =>
    t.app.services.db.prisma.calculation.findMany({
      where: { id: { in: calculations.flatMap((c) => (c === null ? [] : [typeof c === 'string' ? c : c.id])) } },
      select: { id: true, org_id: true },
    });
  const batchStatements = () => t.statements.statements.filter((sql) => sql.includes('INSERT INTO calculation_factors')).length;
  // Calculations are content-addressed: each record made here has inputs of its own (`n`), unless `n` is given.
  let made = 0;
  const record = (org_id: string, country = 'DE', n = ++made): CalculationRecord => ({
    org_id,
    api_key_id: null,
    kind: 'footprint',
    engine_version: 'test',
    country,
    category: 'laptop',
    product_id: null,
    confidence: 'estimated_low',
    total_kg_co2e: 300,
    production_kg: 250,
    transport_kg: 5,
    use_phase_kg: 40,
    end_of_life_kg: 5,
    inputs: { country, n },
    result: {},
    grid_factor_id: null,
    factors: [],
    created_at: new Date(),
  });
  /** A writer whose warnings and errors are kept for the test to read. */
  const writerWithLog = (options?: { maxBatch: number }) => {
    const lines: { level: number; msg: string; calculation_id?: string; org_id?: string }[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { writer: new CalculationWriter(t.app.services.db.prisma, log, options), lines };
  };

  it('answers a footprint with calculation_id null when only its row cannot be stored; the rest of the batch is stored', async () => {
    const { key } = await t.createKey(orgB);
    const caller = await authenticate(`Bearer ${key}`, '127.0.0.1', t.app.services.keys);
    // The service itself does not check text (the API edge does), so this lone surrogate reaches the database, which refuses it.
    // Models of their own: calculations are content-addressed, and 19 alike would be one.
    const models = Array.from({ length: 20 }, (_, i) => (i === 7 ? 'Latitude \uD800' : `Latitude 54${10 + i}`));
    const answers = await Promise.all(
      models.map((model) => t.app.services.footprint.footprint({ brand: 'Dell', model, category: 'laptop', country: 'DE' }, caller)),
    );

    expect(answers[7]!.calculation_id).toBeNull();
    expect(answers[7]!.total_kg_co2e).toBeGreaterThan(0);
    const ids = answers.filter((_, i) => i !== 7).map((a) => a.calculation_id);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(await stored(ids)).toHaveLength(19);
  });

  it("stores every row of a good organisation while another organisation's rows are refused, and logs each refused row", async () => {
    const { writer, lines } = writerWithLog();
    const good: Promise<StoredCalculation | null>[] = [];
    const poisoned: Promise<StoredCalculation | null>[] = [];
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 10; i++) {
        good.push(writer.store(record(orgB)));
        if (i % 3 === 0) poisoned.push(writer.store(record(orgA, 'D\u0000E')));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const goodIds = await Promise.all(good);
    expect(await Promise.all(poisoned)).toEqual(poisoned.map(() => null));
    const rows = await stored(goodIds);
    expect(rows).toHaveLength(100);
    expect(new Set(rows.map((r) => r.org_id))).toEqual(new Set([orgB]));

    const failures = lines.filter((l) => l.msg === 'failed to store calculation');
    expect(failures).toHaveLength(poisoned.length);
    expect(failures.every((l) => l.level === 50 && l.org_id === orgA && typeof l.calculation_id === 'string')).toBe(true);
  });

  it('writes the rows that arrive together in one statement, and never more than maxBatch rows per statement', async () => {
    const { writer } = writerWithLog({ maxBatch: 50 });
    t.statements.reset();
    const first = await Promise.all(Array.from({ length: 40 }, () => writer.store(record(orgB))));
    expect(batchStatements()).toBe(1);

    t.statements.reset();
    const second = await Promise.all(Array.from({ length: 120 }, () => writer.store(record(orgB))));
    expect(batchStatements()).toBe(3);
    // Each id was answered only once its row was committed.
    expect(await stored([...first, ...second])).toHaveLength(160);
  });

  it('stores a calculation once, however often and by however many writers (instances) it is stored at once', async () => {
    const one = writerWithLog().writer;
    const other = writerWithLog().writer;
    const r = record(orgB);
    const later = (ms: number) => ({ ...r, created_at: new Date(r.created_at.getTime() + ms) });
    t.statements.reset();
    const answers = await Promise.all([one.store(r), one.store(later(5)), other.store(later(10)), other.store(later(15))]);
    const [row] = await t.app.services.db.prisma.calculation.findMany({ where: { id: answers[0]!.id } });
    // Each answer is the one row, with the created_at of whichever writer committed it first.
    expect(answers).toEqual(answers.map(() => ({ id: row!.id, calculated_at: row!.created_at })));
    expect(batchStatements()).toBe(2);
    t.statements.reset();
    expect(await one.store(later(20))).toEqual(answers[0]);
    expect(await other.store(later(20))).toEqual(answers[0]);
    expect(t.statements.count).toBe(0);
  });

  it('flush() resolves once everything queued is stored', async () => {
    const { writer } = writerWithLog();
    const ids: (StoredCalculation | null)[] = [];
    for (let i = 0; i < 10; i++) void writer.store(record(orgB)).then((id) => ids.push(id));
    await writer.flush();
    expect(ids).toHaveLength(10);
    expect(await stored(ids)).toHaveLength(10);
  });
});
