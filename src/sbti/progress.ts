/**
 * Progress of an SBTi target against the current inventory (docs/odata.md, SbtiTargets).
 *
 * The current figure is the organisation's inventory as Organization.total_kg_co2e counts it (the
 * current whole-life figures of every asset with a calculation), restricted to the lifecycle phases
 * the target's scope covers, read from the MonthlyEmissions rollup. The base-year figure is the
 * organisation's own and must be measured the same way for the comparison to mean anything.
 */
import type { Prisma, PrismaClient } from '../db/database.ts';

/** Lifecycle phases of the inventory in each scope: use-phase electricity is the devices' scope 2; production, transport and end of life are scope 3. */
export const SBTI_SCOPES = {
  scope_1_2: ['use_phase'],
  scope_3: ['production', 'transport', 'end_of_life'],
  scope_1_2_3: ['production', 'transport', 'use_phase', 'end_of_life'],
} as const;

export type SbtiScope = keyof typeof SBTI_SCOPES;
export type Phase = (typeof SBTI_SCOPES)[SbtiScope][number];

export const isSbtiScope = (value: string): value is SbtiScope => Object.hasOwn(SBTI_SCOPES, value);

export interface Inventory {
  kg: Record<Phase, number>;
  /** Latest change of the rollup (null: no asset with a calculation). */
  measured_at: Date | null;
}

export interface TargetFigures {
  scope: string;
  base_year: number;
  base_year_kg_co2e: number;
  target_year: number;
  reduction_pct: number;
}

export interface SbtiProgress {
  target_kg_co2e: number;
  current_kg_co2e: number | null;
  expected_kg_co2e: number;
  achieved_reduction_pct: number | null;
  progress_pct: number | null;
  on_track: boolean | null;
}

/** The progress fields, as OData properties and GraphQL fields describe them. */
export const SBTI_PROGRESS_FIELDS: readonly { name: keyof SbtiProgress; boolean?: true; description: string }[] = [
  { name: 'target_kg_co2e', description: 'base_year_kg_co2e less reduction_pct, kg CO2e' },
  { name: 'current_kg_co2e', description: 'Current inventory in the phases of the scope, kg CO2e (null: no calculated asset yet)' },
  { name: 'expected_kg_co2e', description: 'Straight line from the base year to the target, at the current year, kg CO2e' },
  { name: 'achieved_reduction_pct', description: 'Reduction from the base year so far, percent (negative: an increase)' },
  { name: 'progress_pct', description: 'Share of the targeted reduction achieved, percent' },
  { name: 'on_track', boolean: true, description: 'current_kg_co2e at or below expected_kg_co2e' },
];

/** The inventory sums by phase, as one query (so that a batch transaction can include it); inventoryFrom reads its result. */
export const inventoryQuery = (prisma: PrismaClient) =>
  prisma.monthlyEmission.aggregate({
    _sum: { production_kg: true, transport_kg: true, use_phase_kg: true, end_of_life_kg: true },
    _max: { updated_at: true },
  });

export type InventoryAggregate = Awaited<ReturnType<typeof inventoryQuery>>;

export function inventoryFrom({ _sum, _max }: InventoryAggregate): Inventory {
  const kg = (value: Prisma.Decimal | null) => (value === null ? 0 : value.toNumber());
  return {
    kg: {
      production: kg(_sum.production_kg),
      transport: kg(_sum.transport_kg),
      use_phase: kg(_sum.use_phase_kg),
      end_of_life: kg(_sum.end_of_life_kg),
    },
    measured_at: _max.updated_at,
  };
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export function progressOf(target: TargetFigures, inventory: Inventory, now: Date): SbtiProgress {
  const base = target.base_year_kg_co2e;
  const targetKg = base * (1 - target.reduction_pct / 100);
  const share = Math.min(1, Math.max(0, (now.getUTCFullYear() - target.base_year) / (target.target_year - target.base_year)));
  const expected = base - (base - targetKg) * share;
  const phases = isSbtiScope(target.scope) ? SBTI_SCOPES[target.scope] : undefined;
  // Without a calculated asset there is no inventory to measure (not an inventory of zero).
  const current = phases && inventory.measured_at ? phases.reduce((sum, phase) => sum + inventory.kg[phase], 0) : null;
  const achieved = current === null ? null : ((base - current) / base) * 100;
  return {
    target_kg_co2e: round(targetKg, 3),
    current_kg_co2e: current === null ? null : round(current, 3),
    expected_kg_co2e: round(expected, 3),
    achieved_reduction_pct: achieved === null ? null : round(achieved, 2),
    progress_pct: achieved === null ? null : round((achieved / target.reduction_pct) * 100, 2),
    on_track: current === null ? null : current <= expected,
  };
}
