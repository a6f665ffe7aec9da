/**
 * A calibration row with what the engine derives from its specs: built by model.ts's prepare(), read
 * by the component fit (model.ts), the adjustment layer (adjust.ts) and the energy fit (energy-fit.ts).
 */
import type { AdjustmentFeature } from '../../src/footprint/engine/adjustment.ts';
import type { ComponentValues } from '../../src/footprint/engine/production.ts';
import type { ResolvedSpecs } from '../../src/footprint/engine/specs.ts';
import type { CategoryDefinition } from '../../src/footprint/engine/types.ts';
import type { CalibrationRow } from './load.ts';

export interface PreparedRow {
  row: CalibrationRow;
  category: CategoryDefinition;
  fitGroup: string;
  fold: number;
  blocks: { structure: number; electronics: number; memory_storage: number; display: number };
  specs: ResolvedSpecs;
  /** proportional component priors at the actual specs */
  raw: ComponentValues;
  weight: number;
  weightSupplied: boolean;
  transportParts: { fixed: number; perAirShare: number };
  /** normalised brand of the sheet */
  brand: string | null;
  /** yearly kWh the engine uses (supplied TEC or category profile) */
  annualKwh: number;
  /** spec features of the adjustment layer */
  features: Record<AdjustmentFeature, number>;
}
