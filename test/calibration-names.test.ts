/**
 * Names as users type them (issue 15.5): every product of the calibration set (manufacturer PCFs,
 * ../shared/calibration/manufacturer-pcf.csv) asked by brand and name only, as printed on the
 * manufacturer's sheet ("OptiPlex 3080 Tower", "250 G9 Notebook PC", "AW2518H Monitor"), through
 * the lookup chain a footprint uses (CatalogueService.find → resolveDevice → footprintModelOf),
 * in-process. Reports the share resolved to a catalogue device or family (methodology.match
 * exact, variant, shared or family) and the median absolute % error of the embodied footprint (production + transport +
 * end of life) against the manufacturer's (gwp_total x (1 - use ratio)) on the resolved path, the
 * unresolved path and overall; unresolved names are asked once more with the sheet's category (a
 * user who picks one). Nothing of the set is copied into the project; without it the test skips.
 *
 * CALIBRATION_NAMES_VERBOSE=1 lists the unresolved names.
 */
import { describe, expect, it } from 'vitest';
import { loadCalibration, readCalibrationRecords } from '../scripts/calibration/load.ts';
import { CALIBRATION_FILE, calibrationSetPresent } from './support/calibration-set.ts';
import { K_FOLDS, defaultParameters, fitParameters, prepare } from '../scripts/calibration/model.ts';
import { insideInterval, type EngineParameters } from '../src/footprint/engine/index.ts';
import { builtInCatalogue, REGION } from '../scripts/calibration/names.ts';
import { resolveDevice } from '../src/footprint/device.ts';
import { footprintModelOf } from '../src/footprint/service.ts';

const present = calibrationSetPresent('calibration-names.test', 'the "asked by name" measurement');

/**
 * Measured 2026-11-25 (issue 15.5): before the typed-name readings 220 of 762 resolved (28.9 %),
 * median embodied APE of that path 11.0 %; after, 282 (37.0 %), 11.0 %. Measured 2026-11-25 22:50
 * on one snapshot of the catalogue and engine (docs/search.md "Never a wrong device"): before the
 * rule against wrong devices 282 (37.0 %), 12.0 %; after it and families, 278 (36.5 %: 274
 * devices, 4 families), 11.7 %; overall 20.0 % → 19.9 %. Then names the catalogue does not know
 * read for their kind and screen size (src/catalogue/name-hints.ts: "AW2518H Monitor", "24-inch
 * iMac"): unresolved 24.8 % → 19.3 %, overall 19.9 % → 17.1 %. 2026-11-27, lines as kinds (PowerEdge
 * → server), the brand's kind (Lexmark → printer) and the brand's name patterns (HP "P22a G4" →
 * monitor): 19.0 % and 16.9 % (docs/search.md says why the monitors cost 0.6 points). Those figures use
 * the shipped parameters, fitted on every row of the set; cross-validated (parameters fitted without
 * the row's PCF document, the measure): resolved 15.5 %, unresolved 20.7 %, overall 18.3 %
 * (2026-11-27). Then unknown names dated by the catalogue's devices numbered like them
 * (docs/search.md): unresolved 19.0 → 18.3 %, overall 16.9 → 15.7 %; cross-validated unresolved
 * 20.7 → 20.4 %, overall 18.3 → 18.2 %. 2026-11-28, engine 4.4.0 (unstated memory and storage from
 * the category's typical configuration of the release year, docs/methodology.md section 2):
 * resolved 11.7 → 11.5 %, overall 15.7 → 15.2 %; cross-validated resolved 15.5 → 13.4 %, unresolved
 * 20.4 → 18.7 %, overall 18.2 → 16.7 %. Engine 4.5.0 (an unstated weight follows the screen, amount
 * terms >= 0): resolved 11.5 → 11.4 % (monitors 13.1 → 8.7 %), overall 15.2 %; cross-validated
 * resolved 13.4 → 13.3 %, unresolved 18.7 → 19.0 %, overall 16.7 %. Then screen sizes read from model
 * numbers (docs/search.md): unresolved 17.7 → 16.1 %, overall 15.2 → 14.6 %; cross-validated unresolved
 * 19.0 → 17.9 %, overall 16.7 → 16.2 %. Then memory and storage written in names ("iPhone 13 Pro 1TB"):
 * resolved 11.4 → 10.9 %, overall 14.6 → 14.1 %; cross-validated resolved 13.3 → 13.0 %, overall 16.2 →
 * 16.0 %. Lines of desk computers of several forms (OptiPlex, ThinkCentre) as desktops: unresolved 16.1 → 15.8 %,
 * overall 14.1 → 13.8 %; cross-validated unresolved 17.9 → 17.7 %, overall 16.0 %. The test keeps floors.
 */
const MIN_RESOLVED_SHARE = 0.36;
const MAX_RESOLVED_MEDIAN_APE = 11.5;
const MAX_OVERALL_MEDIAN_APE = 15;
const MAX_HELD_OUT_MEDIAN_APE = 16.5;
/** Unresolved names dated by the catalogue's devices numbered like them (105 on 2026-11-27). */
const MIN_DATED_NAMES = 90;
/** Share of names whose manufacturer value is inside the stated embodied interval (2026-11-29, engine 4.7.0: 76.7 %). */
const MIN_NAME_COVERAGE_PCT = 74;
/** Names that resolve to a family (ThinkPad E14, X1 Carbon, X1 Yoga, ThinkBook 14 on 2026-11-25). */
const MIN_FAMILIES = 3;

const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (n: number, d: number) => `${((n / Math.max(d, 1)) * 100).toFixed(1)}%`;
const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');

describe.skipIf(!present)('calibration products asked by brand and name only (issue 15.5)', () => {
  it('reports the share resolved to a catalogue device and the median embodied error of each path', async () => {
    const catalogue = await builtInCatalogue();
    const records = readCalibrationRecords(CALIBRATION_FILE);
    const { rows } = loadCalibration(CALIBRATION_FILE);
    // Parameters fitted without each row's fold (folds by PCF document, as npm run accuracy): the
    // held-out figure; the shipped parameters were fitted on every row, these names included.
    const prepared = prepare(rows);
    const foldOf = new Map(prepared.map((p) => [p.row.index, p.fold]));
    const heldOut: EngineParameters[] = [];
    for (let k = 0; k < K_FOLDS; k++)
      heldOut.push(
        fitParameters(
          prepared.filter((p) => p.fold !== k),
          defaultParameters(),
        ),
      );

    type Row = {
      status: string;
      ape: number | null;
      apeHeldOut: number | null;
      /** The held-out embodied estimate and the manufacturer's value it is judged against. */
      heldOut: { estimate: number; published: number } | null;
      apeWithCategory: number | null;
      /** Held out, for a name dated by its model number, with that year withheld (else null). */
      apeHeldOutUndated: number | null;
      /** The embodied uncertainty_pct and confidence the footprint states (shipped parameters; no use phase). */
      uncertainty: { pct: number; confidence: string } | null;
      sub: string;
      name: string;
      brand: string;
      device: string;
    };
    const out: Row[] = [];
    for (const row of rows) {
      const rec = records[row.index - 1]!;
      const brand = rec.manufacturer?.trim() ?? '';
      const name = rec.name?.trim() ?? '';
      if (!brand || !name) continue;
      const match = await catalogue.find(brand, null, name);
      // undated: the release year a name the catalogue does not know takes from its model number withheld.
      const embodiedOf = (category?: string, params?: EngineParameters, undated = false): number | null => {
        const { device } = resolveDevice({ brand, model: name, ...(category ? { category } : {}) }, match);
        if (!device) return null;
        const fp = footprintModelOf(
          undated ? { ...device, release_year: undefined } : device,
          REGION[row.use_location.toUpperCase()] ?? 'WORLD',
          row.grid_factor,
          params,
        );
        return fp.breakdown.production_kg + fp.breakdown.transport_kg + fp.breakdown.end_of_life_kg;
      };
      const ape = (v: number | null) => (v !== null && row.embodied !== null ? (Math.abs(v - row.embodied) / row.embodied) * 100 : null);
      const status = match?.match?.status ?? (match ? 'exact' : 'none');
      const asked = resolveDevice({ brand, model: name }, match).device;
      const stated = asked ? footprintModelOf(asked, 'WORLD', 0) : null;
      const dated = !match && resolveDevice({ brand, model: name }).device?.release_year !== undefined;
      const fold = foldOf.get(row.index);
      const heldOutEstimate = fold !== undefined ? embodiedOf(undefined, heldOut[fold]) : null;
      out.push({
        status,
        ape: ape(embodiedOf()),
        apeHeldOut: ape(heldOutEstimate),
        heldOut: heldOutEstimate !== null && row.embodied !== null ? { estimate: heldOutEstimate, published: row.embodied } : null,
        apeHeldOutUndated: dated && fold !== undefined ? ape(embodiedOf(undefined, heldOut[fold], true)) : null,
        apeWithCategory: ape(embodiedOf(match ? undefined : row.category_id)),
        uncertainty: stated ? { pct: stated.uncertainty_pct, confidence: stated.confidence } : null,
        sub: row.source_subcategory,
        name,
        brand,
        device: match?.entry.name ?? '',
      });
    }

    const resolved = out.filter((r) => r.status !== 'none');
    const none = out.filter((r) => r.status === 'none');
    const apes = (rs: Row[], k: 'ape' | 'apeHeldOut' | 'apeWithCategory' | 'apeHeldOutUndated' = 'ape') =>
      rs.map((r) => r[k]).filter((v): v is number => v !== null);
    const dated = out.filter((r) => r.apeHeldOutUndated !== null && r.apeHeldOut !== null);
    const byStatus = ['exact', 'variant', 'shared', 'family', 'none']
      .map((s) => `${s} ${out.filter((r) => r.status === s).length}`)
      .join(', ');
    const subs = [...new Set(out.map((r) => r.sub))].sort();
    // Coverage of the interval a caller sees: the manufacturer's value inside the interval the stated
    // embodied uncertainty_pct gives the held-out estimate (estimate / (1 + u) to estimate x (1 + u)).
    const coverage = (rs: Row[]) => {
      const seen = rs.filter((r) => r.uncertainty !== null && r.heldOut !== null);
      const inside = seen.filter((r) => insideInterval(r.heldOut!.estimate, r.heldOut!.published, r.uncertainty!.pct));
      return { n: seen.length, pct: (100 * inside.length) / Math.max(seen.length, 1) };
    };
    const levels = ['estimated_high', 'estimated_medium', 'estimated_low'].map(
      (c) => [c, coverage(out.filter((r) => r.uncertainty?.confidence === c))] as const,
    );
    const lines = [
      `calibration products asked by brand + name: ${out.length}; resolved ${resolved.length} (${pct(resolved.length, out.length)}): ${byStatus}`,
      `  median embodied APE: resolved ${f1(median(apes(resolved)))}% (n=${apes(resolved).length}), unresolved ${f1(median(apes(none)))}% (n=${apes(none).length}), ` +
        `overall ${f1(median(apes(out)))}%; with the sheet's category on unresolved names: unresolved ${f1(median(apes(none, 'apeWithCategory')))}%, overall ${f1(median(apes(out, 'apeWithCategory')))}%`,
      `  ${K_FOLDS}-fold cross-validated (parameters fitted without the row's PCF document): resolved ${f1(median(apes(resolved, 'apeHeldOut')))}%, unresolved ${f1(median(apes(none, 'apeHeldOut')))}%, overall ${f1(median(apes(out, 'apeHeldOut')))}%`,
      `  coverage of the stated embodied interval (manufacturer value inside the held-out estimate's interval; target 80 %): all ${f1(coverage(out).pct)}% (n ${coverage(out).n}), resolved ${f1(coverage(resolved).pct)}%, unresolved ${f1(coverage(none).pct)}%; ` +
        levels.map(([c, v]) => `${c} ${f1(v.pct)}% (n ${v.n})`).join(', '),
      `  unresolved names dated by the catalogue's devices numbered like them: ${dated.length}; cross-validated median APE ${f1(median(apes(dated, 'apeHeldOut')))}% (${f1(median(apes(dated, 'apeHeldOutUndated')))}% with that year withheld)`,
      ...subs.map((s) => {
        const rs = out.filter((r) => r.sub === s);
        const res = rs.filter((r) => r.status !== 'none');
        return `  ${s}: ${rs.length} asked, resolved ${pct(res.length, rs.length)}, median APE resolved ${f1(median(apes(res)))}%, overall (with category) ${f1(median(apes(rs, 'apeWithCategory')))}%`;
      }),
    ];
    if (process.env.CALIBRATION_NAMES_VERBOSE) {
      lines.push(...resolved.map((r) => `  resolved [${r.status}] ${r.brand} | ${r.name} → ${r.device} (APE ${f1(r.ape ?? NaN)}%)`));
      lines.push(...none.map((r) => `  unresolved ${r.brand} | ${r.name}`));
    }
    console.log(lines.join('\n'));

    expect(out.length).toBeGreaterThan(500);
    expect(resolved.length / out.length).toBeGreaterThanOrEqual(MIN_RESOLVED_SHARE);
    expect(out.filter((r) => r.status === 'family').length).toBeGreaterThanOrEqual(MIN_FAMILIES);
    if (resolved.length) expect(median(apes(resolved))).toBeLessThanOrEqual(MAX_RESOLVED_MEDIAN_APE);
    expect(median(apes(out))).toBeLessThanOrEqual(MAX_OVERALL_MEDIAN_APE);
    expect(apes(out, 'apeHeldOut').length).toBe(apes(out).length);
    expect(median(apes(out, 'apeHeldOut'))).toBeLessThanOrEqual(MAX_HELD_OUT_MEDIAN_APE);
    // The year read from the model number earns its place on the names it dates, out of sample
    // (2026-11-28: 13.9 vs 18.3 % with engine 4.4.0's parameters; 15.1 vs 15.9 % once the model number
    // also gives the screen size, which tells part of what the year told).
    // The intervals a caller asking by name sees (2026-11-28: 70.5 % before confidence counted only what is known of
    // the unit and the interval widened without a release year; 76.7 % after, unresolved names 80.3 %). Engine 4.7.0
    // measures the interval stated, value / (1 + u) to value x (1 + u): 72.4 % with the 4.6.0 multipliers, 76.7 % (unresolved
    // 79.1 %) once they are refitted on it.
    expect(coverage(out).pct).toBeGreaterThanOrEqual(MIN_NAME_COVERAGE_PCT);
    expect(Math.abs(coverage(none).pct - 80)).toBeLessThanOrEqual(5);
    expect(dated.length).toBeGreaterThanOrEqual(MIN_DATED_NAMES);
    expect(median(apes(dated, 'apeHeldOut'))).toBeLessThan(median(apes(dated, 'apeHeldOutUndated')) - 0.5);
  }, 240_000);
});
