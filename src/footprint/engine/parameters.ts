/**
 * Fitted engine parameters (data/engine-parameters.json, written by `npm run calibrate`).
 * Loaded once at module load through a JSON import; the engine functions themselves do no I/O.
 */
import raw from '../../../data/engine-parameters.json' with { type: 'json' };
import type { ComponentShape } from './production.ts';

export interface ResidualPercentiles {
  p50: number;
  p80: number;
  p90: number;
}

export interface ProductionMultipliers {
  /** housing, power supply, assembly */
  structure: number;
  /** mainboard, processor, battery */
  electronics: number;
  /** memory and storage */
  memory_storage: number;
  /** display panel */
  display: number;
}

export interface GroupFit {
  /** calibration rows of the group */
  rows: number;
  production_multipliers: ProductionMultipliers;
  /** fitted elasticities of housing to mass and display to screen area (1 = proportional), and their anchors */
  shape: ComponentShape;
  /** cross-validated absolute percentage error of the embodied footprint */
  residual_abs_pct: ResidualPercentiles;
}

/** Per-category fits of transport and end of life (only categories that publish those shares). */
export interface CategoryFit {
  /** rows publishing a transport share / an end-of-life share */
  transport_rows: number;
  eol_rows: number;
  /** fitted air-freight share, null when fewer than 3 rows publish transport */
  air_share: number | null;
  /** fitted end-of-life factor (kg CO2e per kg), null when fewer than 3 rows publish it */
  eol_kg_per_kg: number | null;
}

export interface EngineParameters {
  engine_version: string;
  generated_at: string | null;
  calibration: Record<string, unknown> | null;
  /** fit over all calibration rows, used for groups without data */
  pooled: GroupFit;
  groups: Record<string, GroupFit>;
  categories: Record<string, CategoryFit>;
  /** uncertainty multiplier per confidence level, relative to the group's p80 residual */
  confidence_multipliers: { estimated_high: number; estimated_medium: number; estimated_low: number };
  /** median error ratio manufacturers publish with their PCFs, percent */
  manufacturer_error_pct: number;
  use_phase_uncertainty_pct: { measured: number; profile: number };
}

export const ENGINE_PARAMETERS: EngineParameters = raw as unknown as EngineParameters;

export function categoryFit(params: EngineParameters, categoryId: string): CategoryFit | undefined {
  return params.categories?.[categoryId];
}

export function groupFit(params: EngineParameters, fitGroup: string): GroupFit {
  return params.groups[fitGroup] ?? params.pooled;
}
