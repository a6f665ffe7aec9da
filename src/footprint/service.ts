import {
  ENGINE_VERSION,
  allocateFootprint,
  allocateRefurbishment,
  allocateSavings,
  allocationOf,
  allocationProblems,
  footprintModel,
  refurbishmentModel,
  roundRefurbishment,
  roundSavings,
  savingsModel,
  roundFootprint,
  statedInterval,
  parseSwaps,
  SwapParseError,
  swapLimitProblems,
  type Allocation,
  type AllocationRequest,
  type EngineParameters,
  type FootprintResult,
  type Grade,
  type CriteriaResult,
  type ImpactsResult,
  type RefurbishmentResult,
  type SavingsResult,
  type StatedInterval,
} from './engine/index.ts';
import { closestRegionCodes, factorCitation, normaliseRegionCode } from '../reference/grid-data.ts';
import type { FactorSnapshot, ReferenceStore } from '../reference/store.ts';
import type { Caller } from '../auth/caller.ts';
import { resolveDevice, suppliedSpecs, type DeviceQuery, type FootprintProduct, type ResolvedDevice } from './device.ts';
import { engineYear } from './release-year.ts';
import { invalidFields, type FieldProblem } from '../errors/api-error.ts';
import type { AlikeRecords, CalculationRecord, CalculationWriter, SameResult } from './calculation-writer.ts';
import type { CatalogueService, DeviceMatch } from '../catalogue/service.ts';

export const METHODOLOGY_STANDARD =
  'ISO 14067:2018 and GHG Protocol Product Standard aligned; component-based production model calibrated to manufacturer PCFs';

export interface Methodology {
  standard: string;
  data_sources: string[];
  confidence: FootprintResult['confidence'];
  uncertainty_pct: number;
  /** the interval of the footprint's total_kg_co2e; null for savings and refurbishment (differences, not stated) */
  interval: StatedInterval | null;
  engine_version: string;
  lifetime_years: number;
  annual_kwh: number;
  grid_factor_kg_per_kwh: number;
  /** how the whole-life figures were allocated (duration_years, per_year); null: whole life */
  allocation: Allocation | null;
  match: DeviceMatch;
  warnings: string[];
}

export interface FootprintResponse {
  product: FootprintProduct;
  country: string;
  total_kg_co2e: number;
  breakdown: FootprintResult['breakdown'];
  impacts: ImpactsResult;
  methodology: Methodology;
  calculated_at: Date;
  calculation_id: string | null;
}

export interface SavingsResponse extends SavingsResult {
  impacts: CriteriaResult;
  product: FootprintProduct;
  country: string;
  calculated_at: Date;
  calculation_id: string | null;
  methodology: Methodology;
}

export interface RefurbishmentResponse extends RefurbishmentResult {
  impacts: CriteriaResult;
  product: FootprintProduct;
  country: string;
  reuse_country: string;
  calculated_at: Date;
  calculation_id: string | null;
  methodology: Methodology;
}

/** A footprint request: the device, its country of use, and optionally the duration its figures are allocated to. */
export type FootprintQuery = DeviceQuery & AllocationRequest & { country?: string | null };

interface RegionFactor {
  code: string;
  factor: FactorSnapshot;
}

/** An answer that a stored calculation is cited in. */
type Recorded = { calculated_at: Date; calculation_id: string | null };

/** What a calculation's record holds beyond the answer. */
interface RecordOptions {
  /** Stored in the row's result beside the answer (engine detail worth citing). */
  detail?: object;
  extraFactors?: CalculationRecord['factors'];
  scope?: string;
  /** Shared by the records of one bulk footprint (bulkRecording), which differ only in scope. */
  alike?: AlikeRecords;
}

/** A footprint answer but for its calculation_id and calculated_at, with what its record needs. */
interface Footprint {
  evaluation: Awaited<ReturnType<FootprintService['evaluate']>>;
  answer: Omit<FootprintResponse, 'calculated_at' | 'calculation_id'>;
  alike?: AlikeRecords;
}

/**
 * The calculation endpoints' logic: validates the request, runs the lookup chain and the pure
 * engine, and records a calculation for callers with an organisation (answered once it is stored).
 * Calculations are content-addressed (calculationId): the same calculation asked again is answered
 * with the stored one's calculation_id and calculated_at (when it was first calculated).
 */
export class FootprintService {
  constructor(
    private readonly reference: ReferenceStore,
    private readonly catalogue: CatalogueService,
    private readonly writer: CalculationWriter,
  ) {}

  async footprint(query: FootprintQuery, caller: Caller): Promise<FootprintResponse> {
    const { response, recorded } = await this.footprintRecording(query, caller);
    await recorded;
    return response;
  }

  /**
   * The footprint with `calculation_id` still null, and a promise that resolves once the
   * calculation is committed, having set the response's calculation_id and calculated_at: bulk
   * callers (imports) keep calculating while earlier rows are written. An import passes its
   * asset's `scope` (see CalculationRecord.scope).
   */
  async footprintRecording(
    query: FootprintQuery,
    caller: Caller,
    scope?: string,
  ): Promise<{ response: FootprintResponse; recorded: Promise<void> }> {
    return this.recording(await this.footprintOf(query), query, caller, scope);
  }

  /**
   * footprintRecording for many rows of one caller (an import): rows asking the same footprint are
   * evaluated once and share their calculation's canonical content (AlikeRecords), so a row alike
   * an earlier one costs little more than its scope's hash; rows differing only in a purchase date
   * that does not date the device share the evaluation and their result's canonical JSON. One per
   * import: the catalogue and grid factors it read stay the import's.
   */
  bulkRecording(
    caller: Caller,
  ): (
    query: DeviceQuery & { country?: string | null },
    scope?: string,
  ) => Promise<{ response: FootprintResponse; recorded: Promise<void> }> {
    // Each evaluated footprint with the canonical JSON of its result, which its records share.
    const evaluated = new Map<string, Promise<Footprint & { sameResult: SameResult }>>();
    const alikeSlots = new Map<string, AlikeRecords>();
    // deviceQuery-shaped queries of finite numbers and strings: equal JSON, equal query.
    const footprintOf = (query: DeviceQuery & { country?: string | null }) => {
      const key = JSON.stringify(query);
      let footprint = evaluated.get(key);
      if (!footprint) evaluated.set(key, (footprint = this.footprintOf(query).then((f) => ({ ...f, sameResult: {} }))));
      return footprint;
    };
    return async (query, scope) => {
      // A purchase date dates the device only when nothing else does (chooseReleaseYear), and nearly every
      // row has its own: the footprint without it serves every date when a year came from elsewhere.
      const { purchase_date, ...undated } = query;
      let footprint = await footprintOf(undated);
      if (purchase_date != null && footprint.evaluation.device.release_year_basis === undefined) footprint = await footprintOf(query);
      // Records alike share their content only with the same inputs, purchase date included.
      const key = JSON.stringify(query);
      let alike = alikeSlots.get(key);
      if (!alike) alikeSlots.set(key, (alike = { sameResult: footprint.sameResult }));
      return this.recording({ ...footprint, alike }, query, caller, scope);
    };
  }

  private async footprintOf(query: FootprintQuery): Promise<Footprint> {
    const whole = await this.evaluate(query, 'country', [], (d) => allocationProblems(query, d.category.lifetime_years));
    const allocation = allocationOf(query, whole.unrounded.lifetime_years);
    // The answer and its record are the allocated figures, rounded once from the unrounded whole-life ones.
    const result = allocation ? roundFootprint(allocateFootprint(whole.unrounded, allocation)) : whole.result;
    const evaluation = { ...whole, result };
    const { device, region } = evaluation;
    const answer = {
      product: device.product,
      country: region.code,
      total_kg_co2e: result.total_kg_co2e,
      breakdown: result.breakdown,
      impacts: impactsOf(result),
      methodology: methodology(device, region, result, statedInterval(result.total_kg_co2e, result.uncertainty_pct), allocation),
    };
    return { evaluation, answer };
  }

  private recording(
    { evaluation: { device, region, result }, answer, alike }: Footprint,
    query: DeviceQuery & { country?: string | null },
    caller: Caller,
    scope: string | undefined,
  ): { response: FootprintResponse; recorded: Promise<void> } {
    const response: FootprintResponse = { ...answer, calculated_at: new Date(), calculation_id: null };
    return {
      response,
      recorded: this.record(caller, 'footprint', query, device, region, result, response, {
        detail: { production_components: result.production_components },
        scope,
        alike,
      }),
    };
  }

  async savings(query: FootprintQuery & { remaining_years?: number | null }, caller: Caller): Promise<SavingsResponse> {
    const remaining_years = query.remaining_years ?? 2;
    const { device, region, result, unrounded } = await this.evaluate(query, 'country', [], (d) =>
      allocationProblems(query, d.category.lifetime_years, { remaining_years }),
    );
    const allocation = allocationOf(query, unrounded.lifetime_years);
    const savings = roundSavings(
      allocateSavings(
        savingsModel({ footprint: unrounded, remaining_years, grid_factor_kg_per_kwh: region.factor.value }),
        allocation,
        unrounded.impacts,
      ),
    );
    const response: SavingsResponse = {
      ...savings,
      impacts: impactsOf(savings),
      product: device.product,
      country: region.code,
      methodology: methodology(device, region, result, null, allocation),
      calculated_at: new Date(),
      calculation_id: null,
    };
    await this.record(caller, 'savings', query, device, region, result, response);
    return response;
  }

  async refurbishment(
    query: FootprintQuery & {
      grade: Grade;
      remaining_years?: number | null;
      reuse_country?: string | null;
      swaps?: string | null;
    },
    caller: Caller,
  ): Promise<RefurbishmentResponse> {
    const problems: FieldProblem[] = [];
    const remaining_years = query.remaining_years ?? 2;
    let swaps: ReturnType<typeof parseSwaps> = [];
    try {
      swaps = query.swaps?.trim() ? parseSwaps(query.swaps) : [];
    } catch (error) {
      if (!(error instanceof SwapParseError)) throw error;
      problems.push({ field: 'swaps', reason: `invalid token '${error.token}': ${error.reason}` });
    }
    const reuse = query.reuse_country?.trim() ? this.region(query.reuse_country, 'reuse_country', problems) : undefined;
    const { device, region, result, unrounded } = await this.evaluate(query, 'country', problems, (d) => [
      ...swapLimitProblems(swaps, d.category),
      ...allocationProblems(query, d.category.lifetime_years, { remaining_years }),
    ]);
    const reuseRegion = reuse ?? region;
    const allocation = allocationOf(query, unrounded.lifetime_years);
    const refurbishment = roundRefurbishment(
      allocateRefurbishment(
        refurbishmentModel({
          footprint: unrounded,
          category: device.category,
          specs: device.specs,
          grade: query.grade,
          swaps,
          remaining_years,
          reuse_grid_factor_kg_per_kwh: reuseRegion.factor.value,
          reuse_region: reuseRegion.code,
        }),
        allocation,
        unrounded.impacts,
      ),
    );
    const reuseFactor = reuseRegion.code === region.code ? [] : [{ factor_id: reuseRegion.factor.id, role: 'reuse_grid' }];
    const response: RefurbishmentResponse = {
      ...refurbishment,
      impacts: impactsOf(refurbishment),
      product: device.product,
      country: region.code,
      reuse_country: reuseRegion.code,
      methodology: methodology(
        device,
        region,
        result,
        null,
        allocation,
        reuse && reuseRegion.code !== region.code ? reuseRegion : undefined,
      ),
      calculated_at: new Date(),
      calculation_id: null,
    };
    await this.record(caller, 'refurbishment', query, device, region, result, response, { extraFactors: reuseFactor });
    return response;
  }

  /**
   * Device, region and footprint (`result` rounded for the answer, `unrounded` for the
   * savings and refurbishment derived from it), or one 400 listing every problem found (including `problems` passed in
   * and those `checkDevice` finds in the resolved device).
   */
  private async evaluate(
    query: DeviceQuery & { country?: string | null },
    field: string,
    problems: FieldProblem[] = [],
    checkDevice: (device: ResolvedDevice) => FieldProblem[] = () => [],
  ) {
    const brand = query.brand?.trim();
    const mpn = query.mpn?.trim() || null;
    const model = query.model?.trim() || null;
    const match = brand && (mpn || model) ? await this.catalogue.find(brand, mpn, model, suppliedSpecs(query)) : undefined;
    const resolved = resolveDevice(query, match);
    const region = this.region(query.country, field, problems);
    const all = [...resolved.problems, ...problems, ...(resolved.device ? checkDevice(resolved.device) : [])];
    if (all.length || !resolved.device || !region) throw invalidFields(all);
    const device = resolved.device;
    const unrounded = footprintModelOf(device, region.code, region.factor.value);
    return { device, region, result: roundFootprint(unrounded), unrounded };
  }

  private region(input: string | null | undefined, field: string, problems: FieldProblem[]): RegionFactor | undefined {
    if (!input?.trim()) {
      problems.push({ field, reason: 'is required (ISO 3166-1 alpha-2 such as DE, or ISO 3166-2 such as US-CA)' });
      return undefined;
    }
    const code = normaliseRegionCode(input);
    const factor = code ? this.reference.gridFactor(code) : undefined;
    if (!code || !factor) {
      problems.push({
        field,
        reason: `unknown region code '${input.trim()}'; closest valid codes: ${closestRegionCodes(input, 3).join(', ')}`,
      });
      return undefined;
    }
    return { code, factor };
  }

  /** Stores the calculation `response` answers and sets its calculation_id and calculated_at to the stored row's. */
  private async record(
    caller: Caller,
    kind: CalculationRecord['kind'],
    inputs: object,
    device: ResolvedDevice,
    region: RegionFactor,
    footprint: FootprintResult,
    /** What the caller is answered; stored (with `detail`) as the row's result. */
    response: Recorded,
    { detail, extraFactors = [], scope, alike }: RecordOptions = {},
  ): Promise<void> {
    // Stored only for keys acting for an organisation: those are the calculations a certificate can cite.
    // Awaited, so an id is only ever answered once its row is committed; null if storing it failed.
    if (caller.kind !== 'key' || !caller.orgContext) return;
    const stored = await this.writer.store(
      {
        org_id: caller.orgId,
        api_key_id: caller.keyId,
        kind,
        engine_version: ENGINE_VERSION,
        country: region.code,
        category: device.category.id,
        product_id: device.product_id,
        confidence: footprint.confidence,
        total_kg_co2e: footprint.total_kg_co2e,
        ...footprint.breakdown,
        inputs,
        result: { ...response, ...detail },
        grid_factor_id: region.factor.id,
        factors: [{ factor_id: region.factor.id, role: 'use_grid' }, ...extraFactors],
        created_at: response.calculated_at,
        scope,
      },
      alike,
    );
    if (!stored) return;
    response.calculation_id = stored.id;
    response.calculated_at = stored.calculated_at;
  }
}

/**
 * The engine run for a resolved device in a region: the one place device data becomes engine input.
 * Unrounded (footprintModel): round the answer once with roundFootprint, and derive savings,
 * refurbishment, report sums and scenarios from this, not from the rounded footprint.
 */
export function footprintModelOf(
  device: ResolvedDevice,
  regionCode: string,
  gridFactor: number,
  params?: EngineParameters,
): FootprintResult {
  return footprintModel(
    {
      category: device.category,
      specs: device.specs,
      supplied_spec_count: device.supplied_spec_count,
      published: device.published,
      grid_factor_kg_per_kwh: gridFactor,
      use_region: regionCode,
      brand: device.product.brand,
      release_year: engineYear(
        device.category,
        device.release_year !== undefined && device.release_year_basis
          ? { year: device.release_year, basis: device.release_year_basis }
          : undefined,
      ),
      release_year_estimated: device.release_year_basis === 'purchase_date',
    },
    params,
  );
}

/** The impacts of an engine result (the engine always sets them; only results stored before them lack them). */
function impactsOf<T extends CriteriaResult>(result: { impacts?: T }): T {
  if (!result.impacts) throw new TypeError('engine result without impacts');
  return result.impacts;
}

function methodology(
  device: ResolvedDevice,
  region: RegionFactor,
  result: FootprintResult,
  interval: StatedInterval | null,
  allocation: Allocation | null,
  reuse?: RegionFactor,
): Methodology {
  const vintage = (r: RegionFactor) => `grid factor ${r.code}: ${factorCitation(r.factor)} (${r.factor.value} kg CO2e/kWh)`;
  return {
    standard: METHODOLOGY_STANDARD,
    data_sources: [...device.data_sources, vintage(region), ...(reuse ? [vintage(reuse)] : [])],
    confidence: result.confidence,
    uncertainty_pct: result.uncertainty_pct,
    interval,
    engine_version: result.engine_version,
    lifetime_years: result.lifetime_years,
    annual_kwh: result.annual_kwh,
    grid_factor_kg_per_kwh: region.factor.value,
    allocation,
    match: device.match,
    warnings: device.warnings,
  };
}
