import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import { turn } from '../kernel/turn.ts';
import {
  brandMatches,
  CatalogueIndex,
  successorBrands,
  loadCatalogue,
  resolveModel,
  type CatalogueEntry,
  type CatalogueSpecs,
  type ModelResolution,
} from './search.ts';
import { IcecatClient, IcecatUnavailableError, looksLikeGtin, type IcecatConfig, type IcecatProduct } from './icecat/index.ts';
import { builtInLineCategories, builtInReleaseYears, builtInScreenReadings } from './name-hints.ts';

/** A catalogue device as methodology.match names it. */
export interface MatchedDevice {
  brand: string;
  mpn: string;
  name: string;
}

/**
 * How the lookup chain identified the device (methodology.match):
 * - `exact`: one catalogue device (by part number, name, or a confident model-name match);
 * - `variant`: the model name fits several variants of one model (ThinkPad T14 Gen 3 Intel and
 *   AMD) and a hint picked one: a processor in the model string, else the variant closest to the
 *   supplied specs in which the variants differ;
 * - `shared`: several variants and nothing to tell them apart: the specs they share are used, the
 *   ones they differ in are left to the estimate (supplied values, else category defaults);
 * - `family`: the model name names a family without its generation ("ThinkPad E14", "EliteBook
 *   840"): family-level specs (familySpecs), the fields the family's devices differ in listed;
 * - `none`: no catalogue device; parametric estimate or category defaults.
 */
export interface DeviceMatch {
  status: 'exact' | 'variant' | 'shared' | 'family' | 'none';
  /** The device used (exact, variant); null for shared, family and none. */
  chosen: MatchedDevice | null;
  /** The variants the model name fits (variant, shared), the family's devices (family); empty otherwise. */
  candidates: MatchedDevice[];
  /** What decided: "part number", "model name", "processor 'i5-1245u' in the model name", ... */
  basis: string | null;
  /** Spec fields the variants or family devices differ in (variant, shared, family); for shared these were not taken from the catalogue, for family they are the family's medians. */
  differing_specs: string[];
}

/** A device recognised by the catalogues, and how. */
export interface CatalogueMatch {
  entry: CatalogueEntry;
  product_id: string | null;
  /** For methodology.data_sources, e.g. "built-in catalogue: Dell Latitude 5440 (by part number)". */
  source: string;
  icecat_id?: number;
  icecat_category?: string;
  /** Absent: an exact match. */
  match?: DeviceMatch;
}

type BuiltInResolution = { kind: 'part-number'; entry: CatalogueEntry } | ModelResolution;

const deviceOf = (e: CatalogueEntry): MatchedDevice => ({ brand: e.brand, mpn: e.mpn, name: e.name });

export const BUILT_IN_SOURCE = 'built-in catalogue';
const POSITIVE_TTL_MS = 30 * 86_400_000;
const NEGATIVE_TTL_MS = 86_400_000;

/**
 * The device catalogues behind search, identify and every footprint: the external catalogue
 * (Icecat, when configured; answers cached in the database, positive and negative) and the
 * built-in catalogue (data/catalogue, indexed in memory).
 */
export class CatalogueService {
  private builtIndex: CatalogueIndex | undefined;
  private indexBuild: Promise<CatalogueIndex> | undefined;
  private warming: Promise<void> | undefined;
  private readonly icecat: IcecatClient | undefined;
  private readonly builtInMatches = new Map<string, BuiltInResolution | undefined>();

  private constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly productIds: Map<string, string>,
    icecat: IcecatConfig | undefined,
  ) {
    this.icecat = icecat ? new IcecatClient(icecat) : undefined;
  }

  /**
   * The built-in catalogue's search index, once built (searchIndex); built here in one go only for a
   * caller that did not wait for it.
   */
  get index(): CatalogueIndex {
    this.builtIndex ??= new CatalogueIndex(loadCatalogue());
    return this.builtIndex;
  }

  /**
   * The search index, built off the start-up path by whoever needs it first (the warm-up a second
   * after listening, or a search, identify or footprint before it), a share of the devices per turn of
   * the event loop (CatalogueIndex.build): a request that comes first waits for it instead of building
   * it in one go (150-250 ms) while every other request waits.
   */
  async searchIndex(): Promise<CatalogueIndex> {
    if (this.builtIndex) return this.builtIndex;
    this.indexBuild ??= (async () => {
      await turn();
      const entries = loadCatalogue();
      await turn();
      return CatalogueIndex.build(entries);
    })().catch((error: unknown) => {
      this.indexBuild = undefined;
      throw error;
    });
    const index = await this.indexBuild;
    this.builtIndex ??= index;
    return this.builtIndex;
  }

  /**
   * Builds, a turn of the event loop each, what the first search, footprint by name or import would
   * otherwise build inside its request, holding every other request meanwhile: the search index
   * (150-250 ms), the words of every device's model numbers (about 550 ms on a busy 2-core machine)
   * and the readings of names: product lines' categories, release years, screen sizes (about 300 ms).
   * The server calls it a second after it listens (docs/benchmarks.md, "The first import of a process"),
   * and an import that comes first waits for it rather than build the index in one go. Once per service.
   */
  warm(): Promise<void> {
    this.warming ??= this.prepare().catch((error: unknown) => {
      this.warming = undefined;
      throw error;
    });
    return this.warming;
  }

  private async prepare(): Promise<void> {
    await this.searchIndex();
    const steps = [
      // Any model number: the first asks for the set of all of them.
      () => this.index.someDeviceHasNumber('5440'),
      builtInLineCategories,
      builtInReleaseYears,
      builtInScreenReadings,
    ];
    for (const step of steps) {
      await turn();
      step();
    }
  }

  static async create(prisma: PrismaClient, log: Logger, icecat?: IcecatConfig): Promise<CatalogueService> {
    // One JSON value instead of 2 600 rows: read on the path to a restarted server's first answer,
    // and PGlite parses each value of each row in JavaScript.
    const [{ products }] = await prisma.$queryRaw<[{ products: [brand: string, mpn: string, id: string][] | null }]>`
      SELECT json_agg(json_build_array(brand, mpn, id)) AS products FROM products`;
    return new CatalogueService(prisma, log, new Map((products ?? []).map(([brand, mpn, id]) => [productKey(brand, mpn), id])), icecat);
  }

  get externalConfigured(): boolean {
    return this.icecat !== undefined;
  }

  /**
   * Built-in catalogue only: by part number (mpn or alias), else a match on the model name: one
   * device, or the variants of one model (see DeviceMatch), told apart by a processor in the model
   * string or by the supplied `specs` when they can be. Resolutions are memoised: the catalogue
   * does not change while the process runs, and a fuzzy match costs more than the rest of a footprint.
   */
  findBuiltIn(brand: string | undefined, mpn: string | null, model: string | null, specs: CatalogueSpecs = {}): CatalogueMatch | undefined {
    const key = `${brand ?? ''}\u0000${mpn ?? ''}\u0000${model ?? ''}`.toLowerCase();
    let resolution: BuiltInResolution | undefined;
    if (this.builtInMatches.has(key)) resolution = this.builtInMatches.get(key);
    else {
      if (this.builtInMatches.size >= 50_000) this.builtInMatches.clear();
      resolution = this.resolveBuiltIn(brand, mpn, model);
      this.builtInMatches.set(key, resolution);
    }
    return resolution && ofBrand(this.matchOf(resolution, specs), brand, model ?? mpn ?? '');
  }

  private resolveBuiltIn(brand: string | undefined, mpn: string | null, model: string | null): BuiltInResolution | undefined {
    const byCode = mpn ? this.index.findByPartNumber(mpn, brand) : undefined;
    if (byCode) return { kind: 'part-number', entry: byCode };
    const name = model ?? mpn;
    return name ? resolveModel(this.index, name, brand) : undefined;
  }

  private matchOf(r: BuiltInResolution, specs: CatalogueSpecs): CatalogueMatch {
    if (r.kind === 'part-number') return this.builtIn(r.entry, 'by part number', exactMatch(r.entry, 'part number'));
    // A name matched only in its normalised reading ("OptiPlex 9990 Micro Form Factor" → "optiplex 9990 micro") says so.
    const readAs = r.read_as ? `, read as '${r.read_as}'` : '';
    if (r.kind === 'device')
      return this.builtIn(
        r.entry,
        `by model name${readAs}`,
        exactMatch(r.entry, r.read_as ? `model name, read as '${r.read_as}'` : 'model name'),
      );
    if (r.kind === 'family') return familyMatch(r.family, r.candidates, readAs);
    const { shared, differing } = sharedSpecs(r.candidates);
    const candidates = r.candidates.map(deviceOf);
    const names = r.candidates.map((e) => e.name).join(', ');
    const closest = r.chosen ? undefined : closestVariant(r.candidates, differing, specs);
    const chosen = r.chosen ?? closest?.entry;
    if (chosen) {
      const basis = r.chosen ? `processor '${r.processor}' in the model name` : `closest to the supplied ${closest!.fields.join(', ')}`;
      const how = `by model name${readAs}; ${r.candidates.length} variants match (${names}), chosen by the ${basis}`;
      return this.builtIn(chosen, how, { status: 'variant', chosen: deviceOf(chosen), candidates, basis, differing_specs: differing });
    }
    const first = r.candidates[0]!;
    const entry: CatalogueEntry = {
      brand: first.brand,
      mpn: '',
      name: commonName(r.candidates),
      category: first.category,
      release_year: r.candidates.every((e) => e.release_year === first.release_year) ? first.release_year : 0,
      aliases: [],
      specs: shared,
      source: { note: `specs shared by ${names}` },
    };
    const estimated = differing.length
      ? `; ${differing.join(', ')} ${differing.length === 1 ? 'differs and is' : 'differ and are'} estimated`
      : '';
    return {
      entry,
      product_id: null,
      source: `${BUILT_IN_SOURCE}: ${entry.name}, specs shared by its ${r.candidates.length} variants (${names})${estimated}`,
      match: {
        status: 'shared',
        chosen: null,
        candidates,
        basis: 'model name matches several variants; no processor or supplied spec tells them apart',
        differing_specs: differing,
      },
    };
  }

  /**
   * The lookup chain's catalogue step: the external catalogue when configured (an outage falls
   * back to the built-in catalogue, noted in the source), then the built-in catalogue.
   */
  async find(
    brand: string | undefined,
    mpn: string | null,
    model: string | null,
    specs: CatalogueSpecs = {},
  ): Promise<CatalogueMatch | undefined> {
    if (this.icecat && (mpn || (model && looksLikeGtin(model)))) {
      try {
        const external = await this.lookupExternal(brand, mpn ?? model!);
        if (external) return external;
      } catch (error) {
        if (!(error instanceof IcecatUnavailableError)) throw error;
        this.log.warn({ reason: error.reason }, 'external catalogue unavailable; using the built-in catalogue');
      }
    }
    await this.searchIndex();
    return this.findBuiltIn(brand, mpn, model, specs);
  }

  /** Icecat, through the answer cache; throws IcecatUnavailableError when it cannot tell now. */
  async lookupExternal(brand: string | undefined, code: string): Promise<CatalogueMatch | undefined> {
    if (!this.icecat) return undefined;
    const gtin = looksLikeGtin(code);
    const key = gtin ? `icecat:gtin:${code.trim()}` : `icecat:${(brand ?? '').trim().toLowerCase()}|${code.trim().toLowerCase()}`;
    const cached = await this.prisma.catalogueCacheEntry.findUnique({ where: { key } });
    let product: IcecatProduct | undefined;
    if (cached && cached.expires_at > new Date()) {
      product = cached.found ? (cached.payload as unknown as IcecatProduct) : undefined;
    } else {
      const answer = await this.icecat.lookup(gtin ? { gtin: code } : { brand, productCode: code });
      product = answer.found ? answer.product : undefined;
      const expires_at = new Date(Date.now() + (product ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS));
      const payload = product ? (JSON.parse(JSON.stringify(product)) as object) : undefined;
      await this.prisma.catalogueCacheEntry.upsert({
        where: { key },
        create: { key, found: !!product, payload, expires_at },
        update: { found: !!product, payload, fetched_at: new Date(), expires_at },
      });
    }
    if (!product) return undefined;
    const entry: CatalogueEntry = {
      brand: product.brand,
      mpn: product.mpn,
      name: product.name,
      category: product.mapped_category ?? 'laptop',
      release_year: 0,
      aliases: product.gtin ? [product.gtin] : [],
      specs: product.specs,
      // The data sheet of this part number (one configuration): its memory and storage are the unit's, not a chosen typical one.
      spec_sources: Object.fromEntries(Object.keys(product.specs).map((f) => [f, { basis: 'published' as const }])),
      source: { note: `Icecat product ${product.icecat_id}` },
    };
    return ofBrand(
      {
        entry,
        product_id: null,
        source: `external catalogue: Icecat product ${product.icecat_id} (${product.brand} ${product.mpn})`,
        icecat_id: product.icecat_id,
        icecat_category: product.icecat_category,
        match: exactMatch(entry, 'external catalogue'),
      },
      brand,
      code,
    );
  }

  private builtIn(entry: CatalogueEntry, how: string, match: DeviceMatch): CatalogueMatch {
    return {
      entry,
      product_id: this.productIds.get(productKey(entry.brand, entry.mpn)) ?? null,
      source: `${BUILT_IN_SOURCE}: ${entry.name} (${how})`,
      match,
    };
  }
}

/**
 * The match when every device it stands for is of the caller's brand (brandMatches) or of the
 * brand that sells the named line today (successorBrands: HP ProLiant under HPE), else none:
 * whatever found it (part number, GTIN, name), identification never answers another brand's device.
 */
function ofBrand(match: CatalogueMatch, brand: string | undefined, name: string): CatalogueMatch | undefined {
  if (brand === undefined) return match;
  const given = [brand, ...successorBrands(brand, name)];
  const brands = [match.entry.brand, ...(match.match?.candidates ?? []).map((d) => d.brand)];
  return brands.every((b) => given.some((g) => brandMatches(b, g))) ? match : undefined;
}

/** methodology.match of a device recognised exactly (`basis`: what recognised it, null when not known). */
export function exactMatch(entry: CatalogueEntry, basis: string | null): DeviceMatch {
  return { status: 'exact', chosen: deviceOf(entry), candidates: [], basis, differing_specs: [] };
}

/** methodology.match when no catalogue device was recognised. */
export const NO_MATCH: DeviceMatch = Object.freeze({
  status: 'none',
  chosen: null,
  candidates: [],
  basis: null,
  differing_specs: [],
}) as DeviceMatch;

/**
 * methodology.match and the family-level device of a name that names a family ("ThinkPad E14"):
 * familySpecs of its devices, the category they share, a release year only when they share one.
 */
function familyMatch(family: string, members: readonly CatalogueEntry[], readAs: string): CatalogueMatch {
  const { specs, differing } = familySpecs(members);
  const first = members[0]!;
  const entry: CatalogueEntry = {
    brand: first.brand,
    mpn: '',
    name: family,
    category: first.category,
    release_year: members.every((e) => e.release_year === first.release_year) ? first.release_year : 0,
    aliases: [],
    specs,
    source: { note: `family-level specs of ${members.map((e) => e.name).join(', ')}` },
  };
  const names = members.map((e) => e.name).join(', ');
  const estimated = differing.length ? `; ${differing.join(', ')}: ${differing.length === 1 ? 'differs' : 'differ'} within the family` : '';
  return {
    entry,
    product_id: null,
    source: `${BUILT_IN_SOURCE}: ${family} family (by model name${readAs}; no generation given), family-level specs of its ${members.length} devices (${names})${estimated}`,
    match: {
      status: 'family',
      chosen: null,
      candidates: members.map(deviceOf),
      basis: `model name names the ${family} family, not a generation`,
      differing_specs: differing,
    },
  };
}

/** Devices of a family that state a field needed for a family value: one device's value is not the family's. */
export const MIN_FAMILY_VALUES = 2;

/**
 * Family-level specs: for a number, the median of the values the family's devices state (the lower
 * of the two middle ones for an even count, so every value is one a device states: no 14.8-inch
 * screen between 14 and 15.6), for a text field (screen or storage type) the value when all devices
 * stating one agree; each only when MIN_FAMILY_VALUES or more devices state it (catalogue values
 * not known for a model are empty, docs/catalogue.md). `differing`: the fields the devices do not
 * all state with one value.
 */
export function familySpecs(entries: readonly CatalogueEntry[]): { specs: CatalogueSpecs; differing: string[] } {
  const specs: Record<string, unknown> = {};
  const differing: string[] = [];
  const fields = [...new Set(entries.flatMap((e) => Object.keys(e.specs)))] as (keyof CatalogueSpecs)[];
  for (const f of fields) {
    const values = entries.map((e) => e.specs[f]).filter((v) => v !== undefined);
    if (values.length === 0) continue;
    if (values.length < entries.length || values.some((v) => v !== values[0])) differing.push(f);
    if (values.length < MIN_FAMILY_VALUES) continue;
    if (values.every((v) => typeof v === 'number')) {
      const sorted = (values as number[]).sort((a, b) => a - b);
      specs[f] = sorted[Math.floor((sorted.length - 1) / 2)];
    } else if (values.every((v) => v === values[0])) specs[f] = values[0];
  }
  return { specs: specs as CatalogueSpecs, differing };
}

/** Spec fields every variant states with the same value, and the fields they differ in (or some lack). */
export function sharedSpecs(entries: readonly CatalogueEntry[]): { shared: CatalogueSpecs; differing: string[] } {
  const fields = [...new Set(entries.flatMap((e) => Object.keys(e.specs)))] as (keyof CatalogueSpecs)[];
  const shared: Record<string, unknown> = {};
  const differing: string[] = [];
  for (const f of fields) {
    const v = entries[0]!.specs[f];
    if (v !== undefined && entries.every((e) => e.specs[f] === v)) shared[f] = v;
    else differing.push(f);
  }
  return { shared: shared as CatalogueSpecs, differing };
}

/**
 * The variant closest to the supplied specs in the fields the variants differ in (relative
 * distance for numbers, equal or not for text), when the caller supplied any of those fields and
 * one variant is strictly closest.
 */
export function closestVariant(
  entries: readonly CatalogueEntry[],
  differing: readonly string[],
  specs: CatalogueSpecs,
): { entry: CatalogueEntry; fields: string[] } | undefined {
  const fields = differing.filter((f) => specs[f as keyof CatalogueSpecs] !== undefined) as (keyof CatalogueSpecs)[];
  if (fields.length === 0) return undefined;
  const distance = (e: CatalogueEntry) =>
    fields.reduce((sum, f) => {
      const want = specs[f];
      const have = e.specs[f];
      if (have === undefined) return sum + 1;
      if (typeof want === 'number' && typeof have === 'number')
        return sum + Math.abs(have - want) / Math.max(Math.abs(want), Math.abs(have), 1e-9);
      return sum + (have === want ? 0 : 1);
    }, 0);
  const ranked = entries.map((entry) => ({ entry, d: distance(entry) })).sort((a, b) => a.d - b.d);
  return ranked[0]!.d < ranked[1]!.d ? { entry: ranked[0]!.entry, fields } : undefined;
}

/** The words all names share, in the first name's order: "Lenovo ThinkPad T14 Gen 3" of its Intel and AMD variants. */
export function commonName(entries: readonly CatalogueEntry[]): string {
  const others = entries.slice(1).map((e) => new Set(e.name.split(/\s+/)));
  return entries[0]!.name
    .split(/\s+/)
    .filter((w) => others.every((o) => o.has(w)))
    .join(' ');
}

const productKey = (brand: string, mpn: string) => `${brand.toLowerCase()}|${mpn.toLowerCase()}`;
