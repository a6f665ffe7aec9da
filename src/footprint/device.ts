import {
  SPEC_FIELDS,
  categoryHasField,
  getCategory,
  CATEGORIES,
  outsideRealRange,
  resolveSpecs,
  round2,
  SHEET_CONFIGURATION_FIELDS,
  sheetConfigurationFill,
  sheetConfigurationNote,
  type CategoryDefinition,
  type DeviceSpecs,
  type PublishedFootprint,
} from './engine/index.ts';
import type { FieldProblem } from '../errors/api-error.ts';
import { problemsOf } from '../validation/schemas.ts';
import * as z from 'zod';
import { deviceSpecs, releaseYear as releaseYearInput } from './inputs.ts';
import { chooseReleaseYear, engineYear, PURCHASE_LAG_YEARS, type ReleaseYear } from './release-year.ts';
import { rankClosest } from '../reference/suggest.ts';
import { exactMatch, NO_MATCH, type CatalogueMatch, type DeviceMatch } from '../catalogue/service.ts';
import { describeSpecSources, resolveSpecSources } from '../catalogue/spec-provenance.ts';
import { successorBrands, unmatchableBrand } from '../catalogue/brands.ts';
import { unreadableWords } from '../catalogue/text.ts';
import { categoryConflict } from './category-conflict.ts';
import {
  builtInLineCategories,
  builtInReleaseYears,
  builtInScreenReadings,
  readCapacities,
  readNameHints,
} from '../catalogue/name-hints.ts';

/** A device as callers describe it: the query parameters of 2.1 (tdp is processor_tdp_w). */
export interface DeviceQuery {
  brand?: string | null;
  mpn?: string | null;
  model?: string | null;
  category?: string | null;
  weight_kg?: number | null;
  tdp?: number | null;
  ram_gb?: number | null;
  battery_wh?: number | null;
  screen_size_inch?: number | null;
  screen_type?: DeviceSpecs['screen_type'] | null;
  storage_gb?: number | null;
  storage_type?: DeviceSpecs['storage_type'] | null;
  /** The unit's release (model) year as the caller states it: wins over the catalogue's and the model number's. */
  release_year?: number | null;
  /** When the unit was bought (assets): evidence of its release year when nothing else dates it. */
  purchase_date?: string | Date | null;
}

export interface FootprintProduct {
  brand: string;
  mpn: string | null;
  name: string;
  category: string;
  weight_kg: number;
}

/** What the lookup chain found for a device, ready for the engine. */
export interface ResolvedDevice {
  category: CategoryDefinition;
  specs: DeviceSpecs;
  supplied_spec_count: number;
  published?: PublishedFootprint;
  product: FootprintProduct;
  product_id: string | null;
  release_year?: number;
  /** Where release_year comes from: stated by the caller, the catalogue, the model number, or estimated from a purchase date. */
  release_year_basis?: ReleaseYear['basis'];
  data_sources: string[];
  /** How the device was identified (methodology.match). */
  match: DeviceMatch;
  /** What the caller should know about how the request was read (methodology.warnings): a category conflict. */
  warnings: string[];
}

/**
 * Known spec fields counted for confidence when the model name fits several variants or names a
 * family, and the fields they differ in were neither supplied nor taken from one device: at most
 * estimated_medium (confidenceFor: 2-4 fields), never the estimated_high of an exact device.
 */
export const SHARED_MATCH_MAX_SPEC_COUNT = 4;

const DEFAULT_CATEGORY = 'laptop';
/**
 * The category a desktop is estimated as when a screen size is supplied with it (all-in-ones are
 * often sold and listed as desktops): docs/methodology.md section 11.
 */
export const INTEGRATED_SCREEN_CATEGORY = 'all_in_one';

/** Specs the caller supplied, under the engine's field names. */
export function suppliedSpecs(query: DeviceQuery): DeviceSpecs {
  const specs: DeviceSpecs = {
    weight_kg: query.weight_kg ?? undefined,
    processor_tdp_w: query.tdp ?? undefined,
    ram_gb: query.ram_gb ?? undefined,
    battery_wh: query.battery_wh ?? undefined,
    screen_size_inch: query.screen_size_inch ?? undefined,
    screen_type: query.screen_type ?? undefined,
    storage_gb: query.storage_gb ?? undefined,
    storage_type: query.storage_type ?? undefined,
  };
  return Object.fromEntries(Object.entries(specs).filter(([, v]) => v !== undefined)) as DeviceSpecs;
}

/**
 * Memory and storage a model name states (readCapacities), for fields the caller did not supply and
 * the category has, within its limits; and a data_sources line for each.
 */
function capacitiesFromName(name: string, category: CategoryDefinition, specs: DeviceSpecs): { specs: DeviceSpecs; sources: string[] } {
  const read = readCapacities(name, category.defaults.ram_gb);
  const out: DeviceSpecs = {};
  const sources: string[] = [];
  for (const field of ['ram_gb', 'storage_gb'] as const) {
    const value = read[field];
    if (
      value === undefined ||
      specs[field] !== undefined ||
      !(category.defaults[field] > 0) ||
      !deviceSpecs(category).safeParse({ [field]: value }).success
    )
      continue;
    out[field] = value;
    if (field === 'storage_gb' && read.storage_type && specs.storage_type === undefined) out.storage_type = read.storage_type;
    sources.push(
      `${field} ${value} read from the model name ('${read.written[field]}')${out.storage_type && field === 'storage_gb' ? `, storage_type ${out.storage_type}` : ''}`,
    );
  }
  return { specs: out, sources };
}

const RELEASE_YEAR_INPUT = z.object({ release_year: releaseYearInput.nullish() });

/** The data_sources line of the release year the estimate uses, when the caller stated it or a purchase date gave it. */
function releaseYearSource(
  chosen: ReleaseYear,
  others: { catalogue?: number; modelNumber?: number },
  purchaseDate: unknown,
): string | null {
  if (chosen.basis === 'stated') {
    const overridden = [
      others.catalogue && others.catalogue !== chosen.year ? `the catalogue's ${others.catalogue}` : null,
      others.modelNumber && others.modelNumber !== chosen.year ? `${others.modelNumber} read from the model number` : null,
    ].filter((o) => o !== null);
    return `release_year ${chosen.year} stated by the caller${overridden.length ? `, used instead of ${overridden.join(' and ')}` : ''}`;
  }
  if (chosen.basis === 'purchase_date') {
    const date = purchaseDate instanceof Date ? purchaseDate.toISOString().slice(0, 10) : String(purchaseDate);
    return `release_year ${chosen.year} estimated from the purchase date ${date} (its year less ${PURCHASE_LAG_YEARS}, the median lag between a model's release and its time on the market, within 1 year for 86 % of the models measured; the interval stays the one measured without a year: docs/methodology.md section 3.4)`;
  }
  return null;
}

// Validation reports the caller's names (tdp) rather than the engine's (processor_tdp_w).
const QUERY_NAME: Partial<Record<keyof DeviceSpecs, string>> = { processor_tdp_w: 'tdp' };

/**
 * The lookup chain: catalogue (by mpn, alias or model) → parametric estimate from the supplied
 * specs → category defaults for whatever is still missing. Supplied specs win over catalogue values.
 */
export function resolveDevice(
  query: DeviceQuery,
  found?: CatalogueMatch,
): { device: ResolvedDevice; problems: [] } | { device: undefined; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const brand = query.brand?.trim();
  if (!brand) problems.push({ field: 'brand', reason: 'is required' });
  const mpn = query.mpn?.trim() || null;
  const model = query.model?.trim() || null;
  if (!mpn && !model) problems.push({ field: 'mpn', reason: 'either mpn or model is required' });
  const requested = query.category?.trim().toLowerCase();
  // The caller's category against the identified device's: categoryConflict decides and says which was used.
  const conflict = requested && found && getCategory(requested) ? categoryConflict(requested, found) : undefined;
  const match = conflict?.use === 'requested' ? undefined : found;
  const unreadable = match ? [] : unreadableWords(model ?? '');
  // A name the catalogue does not know may still say what the device is ("AW9999H Monitor", "15.6-inch").
  const hints = match
    ? {}
    : readNameHints(
        model ?? mpn ?? '',
        // A line its successor sells is read as that brand's ("HP ProLiant DL385 Gen10": HPE's ProLiant servers).
        brand ? (successorBrands(brand, model ?? mpn ?? '')[0] ?? brand) : brand,
        builtInLineCategories(),
        builtInReleaseYears(),
        builtInScreenReadings(),
      );
  const named = requested ? undefined : hints.category;
  // A recognised device has its catalogue category; otherwise the caller's, the one its name names, or laptop.
  const chosenId = requested && !getCategory(requested) ? requested : (match?.entry.category ?? requested ?? named?.id ?? DEFAULT_CATEGORY);
  // A desktop with a screen size has its screen built in: it is estimated as an all-in-one.
  const integratedScreen = chosenId === 'desktop' && typeof query.screen_size_inch === 'number' && query.screen_size_inch > 0;
  const categoryId = integratedScreen ? INTEGRATED_SCREEN_CATEGORY : chosenId;
  const category = getCategory(categoryId);
  if (!category) {
    const closest = rankClosest(
      categoryId,
      CATEGORIES.map((c) => c.id),
      3,
    );
    problems.push({
      field: 'category',
      reason: `unknown category '${query.category}'; closest: ${closest.join(', ')} (GET /v1/reference/categories lists all)`,
    });
  }
  const specs = suppliedSpecs(query);
  if (category) {
    for (const p of problemsOf(deviceSpecs(category), specs)) {
      problems.push({ field: QUERY_NAME[p.field as keyof DeviceSpecs] ?? p.field, reason: p.reason });
    }
  }
  problems.push(...problemsOf(RELEASE_YEAR_INPUT, { release_year: query.release_year }));
  if (problems.length) return { device: undefined, problems };

  const supplied = SPEC_FIELDS.filter((f) => specs[f] !== undefined).length;
  // A screen size written in the name or given by its model number, for a category with a screen and within its limits.
  const nameScreen = hints.screen_size_inch ?? hints.screen_from_number?.inch;
  const screenFromName =
    nameScreen !== undefined &&
    specs.screen_size_inch === undefined &&
    category!.defaults.screen_size_inch > 0 &&
    deviceSpecs(category!).safeParse({ screen_size_inch: nameScreen }).success
      ? { screen_size_inch: nameScreen }
      : {};
  // Memory and storage the name states ("iPhone 13 Pro 1TB"), for a device of the catalogue too: the configuration asked for.
  const capacities = capacitiesFromName(model ?? mpn ?? '', category!, specs);
  // Supplied specs override catalogue values; category defaults fill the rest inside the engine.
  const entrySpecs = match?.entry.specs as DeviceSpecs | undefined;
  const catalogueBasis = match ? resolveSpecSources(match.entry.specs, match.entry.spec_sources, match.entry.source) : {};
  // Servers: the catalogue's chosen memory and storage (a deployment, often 64 GB and SSDs) are not what the manufacturers'
  // footprint sheets the engine is fitted on assume (16-32 GB, HDDs); the category's sheet configuration fills what the
  // caller and the name leave unstated instead, and counts not as known of the unit.
  const sheetInstead: readonly (typeof SPEC_FIELDS)[number][] = category!.sheet_configuration
    ? SHEET_CONFIGURATION_FIELDS.filter((f) => entrySpecs?.[f] !== undefined && catalogueBasis[f]?.basis === 'configuration')
    : [];
  const fromCatalogue = Object.fromEntries(
    Object.entries(entrySpecs ?? {}).filter(([f]) => !(sheetInstead as readonly string[]).includes(f)),
  ) as DeviceSpecs;
  const stated: DeviceSpecs = { ...fromCatalogue, ...screenFromName, ...capacities.specs, ...specs };
  const sheet = sheetConfigurationFill(category!, stated);
  const known: DeviceSpecs = { ...stated, ...sheet };
  // A published footprint describes the catalogue configuration: used only when neither the caller nor the name changed it.
  const configured = supplied > 0 || Object.entries(capacities.specs).some(([f, v]) => entrySpecs?.[f as keyof DeviceSpecs] !== v);
  // A match without detail (a stored product) is one device.
  const matchInfo: DeviceMatch = match ? (match.match ?? exactMatch(match.entry, null)) : NO_MATCH;
  // Shared specs of several variants or family-level specs, and a field they differ in not supplied.
  const unresolved =
    (matchInfo.status === 'shared' || matchInfo.status === 'family') &&
    matchInfo.differing_specs.some((f) => specs[f as keyof DeviceSpecs] === undefined);
  // Confidence counts what is known of the caller's unit: supplied, read from its name, or the model's published figure;
  // a catalogue's chosen configuration (memory, storage, processor: "a unit may differ") fills the estimate but counts not.
  const ofUnit = (f: (typeof SPEC_FIELDS)[number]) =>
    stated[f] !== undefined &&
    (specs[f] !== undefined || capacities.specs[f] !== undefined || catalogueBasis[f]?.basis !== 'configuration');
  const knownCount = Math.min(SPEC_FIELDS.filter(ofUnit).length, unresolved ? SHARED_MATCH_MAX_SPEC_COUNT : Infinity);
  // The caller's year first, then the catalogue's, the model number's, and last one estimated from the purchase date.
  const chosenYear = chooseReleaseYear({
    stated: query.release_year,
    catalogue: match?.entry.release_year,
    modelNumber: hints.release_year?.year,
    purchaseDate: query.purchase_date,
  });
  const releaseYear = chosenYear?.year;
  // The weight the engine takes: stated or catalogue, else its estimate from the default, the screen and the battery (unstatedWeight).
  const weight_kg = round2(resolveSpecs(category!, known, releaseYear).weight_kg);
  const pcf = match?.entry.pcf;
  const data_sources = match
    ? [match.source, ...(supplied > 0 ? ['supplied specs override catalogue values'] : [])]
    : [
        supplied > 0 ? 'parametric estimate from supplied specs' : `category defaults (${category!.id})`,
        ...(named && category!.id === named.id
          ? [named.basis ? `category ${named.id}: ${named.basis}` : `category ${named.id} named by the model name ('${named.word}')`]
          : []),
        ...(screenFromName.screen_size_inch !== undefined
          ? [
              hints.screen_from_number
                ? `screen_size_inch ${screenFromName.screen_size_inch} read from the model number ${hints.screen_from_number.basis}`
                : `screen_size_inch ${screenFromName.screen_size_inch} read from the model name`,
            ]
          : []),
        ...(hints.release_year && chosenYear?.basis === 'model_number'
          ? [`release_year ${hints.release_year.year} read from the model number: that of ${hints.release_year.basis}`]
          : []),
        ...(brand ? [unmatchableBrand(brand)].filter((why) => why !== undefined) : []),
        ...(unreadable.length
          ? [
              `model name words in a script the catalogue's names are not written in (${unreadable.join(' ')}): no catalogue device is used, since none can be checked against them`,
            ]
          : []),
      ];
  // Per-field provenance of the catalogue values used (one device; family-level specs say theirs in match.source).
  if (match?.entry.mpn) {
    data_sources.push(
      ...describeSpecSources(
        match.entry,
        (f) => specs[f as keyof DeviceSpecs] === undefined && !(sheetInstead as readonly string[]).includes(f),
      ),
    );
    // Only fields the category has (no screen or battery for a mini PC); annual energy is the energy model's.
    const empty = SPEC_FIELDS.filter((f) => known[f] === undefined && categoryHasField(category!, f));
    if (empty.length)
      data_sources.push(`not published for this model, estimated by the engine (category ${category!.id}): ${empty.join(', ')}`);
  }
  const filled = Object.keys(sheet) as (keyof DeviceSpecs)[];
  const replaced = sheetInstead.filter((f) => f in sheet);
  if (filled.length)
    data_sources.push(
      `${filled.join(', ')}: ${sheetConfigurationNote(category!)}${replaced.length ? `, not the catalogue's typical configuration of this model (${replaced.map((f) => `${f} ${entrySpecs![f]}`).join(', ')})` : ''}; state them for your unit`,
    );
  data_sources.push(...capacities.sources);
  const yearSource = chosenYear
    ? releaseYearSource(chosenYear, { catalogue: match?.entry.release_year, modelNumber: hints.release_year?.year }, query.purchase_date)
    : null;
  if (yearSource) data_sources.push(yearSource);
  const sheetYear = engineYear(category!, chosenYear);
  if (chosenYear && sheetYear !== chosenYear.year)
    data_sources.push(
      `release_year ${chosenYear.year} taken as ${sheetYear} by the engine: manufacturers' footprint sheets of ${category!.id} products, which the engine is fitted on, are dated a median ${sheetYear! - chosenYear.year} years after the model's release (docs/methodology.md section 3.4)`,
    );
  if (integratedScreen)
    data_sources.push(
      `category desktop with screen_size_inch ${query.screen_size_inch}: estimated as ${INTEGRATED_SCREEN_CATEGORY} (screen built in)`,
    );
  // Accepted, but beyond the range of real products of the category: said, not refused.
  for (const p of outsideRealRange(specs, category!))
    data_sources.push(`check ${QUERY_NAME[p.field as keyof DeviceSpecs] ?? p.field}: ${p.reason}`);
  const device: ResolvedDevice = {
    category: category!,
    specs: known,
    supplied_spec_count: knownCount,
    published:
      pcf && !configured
        ? { total_kg: pcf.total_kg, lifetime_years: pcf.lifetime_years, use_location: pcf.use_location, source_url: pcf.source_url }
        : undefined,
    product: match
      ? { brand: match.entry.brand, mpn: match.entry.mpn || null, name: match.entry.name, category: category!.id, weight_kg }
      : { brand: brand!, mpn, name: model ?? mpn!, category: category!.id, weight_kg },
    product_id: match?.product_id ?? null,
    release_year: releaseYear,
    release_year_basis: chosenYear?.basis,
    data_sources:
      pcf && !configured
        ? [...data_sources, `manufacturer-published footprint${pcf.source_url ? `: ${pcf.source_url}` : ''}`]
        : data_sources,
    match: matchInfo,
    warnings: conflict ? [conflict.warning] : [],
  };
  return { device, problems: [] };
}
