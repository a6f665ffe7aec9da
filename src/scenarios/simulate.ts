/**
 * simulateRefurbish: reads the assets (nothing in the inventory is written), runs the pure engine
 * per asset and logs the run (scenario_runs + audit_log, one transaction).
 */
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../db/database.ts';
import type { Services } from '../services.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import type { Grade } from '../footprint/engine/index.ts';
import { footprintModelOf } from '../footprint/service.ts';
import { resolveDevice } from '../footprint/device.ts';
import type { CatalogueMatch } from '../catalogue/service.ts';
import type { CatalogueEntry } from '../catalogue/catalogue-data.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { deviceQuery } from '../assets/import.ts';
import type { AssetSpecs } from '../assets/import-rows.ts';
import { assetQuarter, DEFAULT_GRADE, SCENARIO_ASSUMPTIONS, summarise, type ScenarioSummary } from './refurbish.ts';

export const MAX_SCENARIO_ASSETS = 500;
export const SCENARIO_KIND = 'simulate_refurbish';
export const SCENARIO_AUDIT_EVENT = 'scenario.simulate_refurbish';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ScenarioOutcome extends ScenarioSummary {
  scenario_run_id: string;
  grade: Grade;
  assumptions: string[];
}

export const PRODUCT_SELECT = {
  id: true,
  brand: true,
  mpn: true,
  name: true,
  category: true,
  release_year: true,
  aliases: true,
  weight_kg: true,
  screen_size_inch: true,
  screen_type: true,
  processor_tdp_w: true,
  ram_gb: true,
  storage_gb: true,
  storage_type: true,
  battery_wh: true,
  typical_consumption_kwh: true,
  pcf_total_kg: true,
  pcf_lifetime_years: true,
  pcf_use_location: true,
  pcf_source_url: true,
  source: true,
  source_note: true,
  spec_sources: true,
} as const;

export type ProductRow = { [K in keyof typeof PRODUCT_SELECT]: unknown } & {
  id: string;
  brand: string;
  mpn: string;
  name: string;
  category: string;
};

/** The catalogue match an asset's product stands for, so the device resolves as it did when the asset was calculated. */
export function matchOf(p: ProductRow): CatalogueMatch {
  const specKeys = [
    'weight_kg',
    'screen_size_inch',
    'screen_type',
    'processor_tdp_w',
    'ram_gb',
    'storage_gb',
    'storage_type',
    'battery_wh',
    'typical_consumption_kwh',
  ] as const;
  const specs = Object.fromEntries(specKeys.filter((k) => p[k] !== null && p[k] !== undefined).map((k) => [k, p[k]]));
  return {
    entry: {
      brand: p.brand,
      mpn: p.mpn,
      name: p.name,
      category: p.category,
      release_year: (p.release_year as number | null) ?? 0,
      aliases: (p.aliases as string[]) ?? [],
      specs,
      pcf:
        typeof p.pcf_total_kg === 'number' && typeof p.pcf_lifetime_years === 'number'
          ? {
              total_kg: p.pcf_total_kg,
              lifetime_years: p.pcf_lifetime_years,
              use_location: (p.pcf_use_location as string | null) ?? '',
              source_url: (p.pcf_source_url as string | null) ?? undefined,
            }
          : undefined,
      source: { url: (p.source as string | null) ?? undefined, note: (p.source_note as string | null) ?? undefined },
      spec_sources: (p.spec_sources as CatalogueEntry['spec_sources'] | null) ?? undefined,
    },
    product_id: p.id,
    source: `product ${p.brand} ${p.mpn}`,
  };
}

export function parseGrade(grade: string | null | undefined): Grade {
  const g = (grade ?? DEFAULT_GRADE).trim().toUpperCase();
  if (g !== 'A' && g !== 'B' && g !== 'C') throw invalidParameter('grade', `must be A (Like New), B (Good) or C (Fair), got '${grade}'`);
  return g;
}

export async function simulateRefurbish(
  { prisma, services, caller }: { prisma: PrismaClient; services: Services; caller: KeyCaller },
  assetIds: readonly string[],
  gradeInput?: string | null,
): Promise<ScenarioOutcome> {
  const grade = parseGrade(gradeInput);
  const ids = [...new Set(assetIds.map((raw) => String(raw).trim()).map((id) => (UUID.test(id) ? id.toLowerCase() : id)))];
  if (ids.length === 0) throw invalidParameter('assetIds', 'must name at least one asset');
  if (ids.length > MAX_SCENARIO_ASSETS) {
    throw new ApiError(
      400,
      'TOO_MANY_ASSETS',
      "Invalid parameter 'assetIds'",
      `assetIds: at most ${MAX_SCENARIO_ASSETS} assets per call, got ${ids.length}; batch larger portfolios into several calls`,
    );
  }
  const wellFormed = ids.filter((id) => UUID.test(id));
  const assets = await prisma.asset.findMany({
    where: { id: { in: wellFormed } },
    select: {
      id: true,
      brand: true,
      mpn: true,
      model: true,
      category: true,
      country: true,
      specs: true,
      product: { select: PRODUCT_SELECT },
    },
  });
  const found = new Set(assets.map((a) => a.id));
  // Unknown ids and ids of other organisations get the same answer: existence is not revealed.
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) {
    const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? ` and ${missing.length - 20} more` : '');
    throw new ApiError(404, 'ASSETS_NOT_FOUND', 'Assets not found', `assetIds: no asset with id ${shown} in your organisation`);
  }

  const quarters = assets.map((asset) => {
    const query = deviceQuery({ ...asset, specs: (asset.specs ?? {}) as AssetSpecs });
    const resolved = resolveDevice(query, asset.product ? matchOf(asset.product as ProductRow) : undefined);
    const factor = services.reference.gridFactor(asset.country);
    if (!resolved.device || !factor) {
      const why = resolved.problems.map((p) => `${p.field}: ${p.reason}`).join('; ') || `no grid factor for ${asset.country}`;
      throw new ApiError(
        422,
        'ASSET_NOT_CALCULABLE',
        'Asset cannot be calculated',
        `assetIds: asset ${asset.id} cannot be calculated (${why})`,
      );
    }
    const device = resolved.device;
    const footprint = footprintModelOf(device, asset.country, factor.value);
    return assetQuarter({ footprint, category: device.category, specs: device.specs, grid_factor_kg_per_kwh: factor.value, grade });
  });

  const outcome: ScenarioOutcome = {
    ...summarise(quarters),
    scenario_run_id: randomUUID(),
    grade,
    assumptions: SCENARIO_ASSUMPTIONS(grade),
  };
  const { scenario_run_id, assumptions: _assumptions, ...result } = outcome;
  await prisma.$transaction([
    prisma.scenarioRun.create({
      data: {
        id: scenario_run_id,
        org_id: caller.orgId,
        api_key_id: caller.keyId,
        kind: SCENARIO_KIND,
        asset_ids: assets.map((a) => a.id),
        // an object of plain figures and strings; its interfaces lack the index signature Prisma's JSON type asks for
        result: result as unknown as Prisma.InputJsonValue,
      },
    }),
    prisma.auditLog.create({
      data: auditEntry(
        caller,
        SCENARIO_AUDIT_EVENT,
        { type: 'scenario_run', id: scenario_run_id },
        { asset_count: assets.length, grade, delta_kg_co2e: result.delta_kg_co2e },
      ),
    }),
  ]);
  return outcome;
}
