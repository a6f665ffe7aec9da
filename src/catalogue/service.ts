import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import { CatalogueIndex, loadCatalogue, type CatalogueEntry } from './search.ts';
import { IcecatClient, IcecatUnavailableError, looksLikeGtin, type IcecatConfig, type IcecatProduct } from './icecat/index.ts';

/** A device recognised by the catalogues, and how. */
export interface CatalogueMatch {
  entry: CatalogueEntry;
  product_id: string | null;
  /** For methodology.data_sources, e.g. "built-in catalogue: Dell Latitude 5440 (by part number)". */
  source: string;
  icecat_id?: number;
  icecat_category?: string;
}

export const BUILT_IN_SOURCE = 'built-in catalogue';
const POSITIVE_TTL_MS = 30 * 86_400_000;
const NEGATIVE_TTL_MS = 86_400_000;

/**
 * The device catalogues behind search, identify and every footprint: the external catalogue
 * (Icecat, when configured; answers cached in the database, positive and negative) and the
 * built-in catalogue (data/catalogue, indexed in memory).
 */
export class CatalogueService {
  readonly index: CatalogueIndex;
  private readonly icecat: IcecatClient | undefined;
  private readonly builtInMatches = new Map<string, CatalogueMatch | undefined>();

  private constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly productIds: Map<string, string>,
    icecat: IcecatConfig | undefined,
  ) {
    this.index = new CatalogueIndex(loadCatalogue());
    this.icecat = icecat ? new IcecatClient(icecat) : undefined;
  }

  static async create(prisma: PrismaClient, log: Logger, icecat?: IcecatConfig): Promise<CatalogueService> {
    const rows = await prisma.product.findMany({ select: { id: true, brand: true, mpn: true } });
    return new CatalogueService(prisma, log, new Map(rows.map((r) => [productKey(r.brand, r.mpn), r.id])), icecat);
  }

  get externalConfigured(): boolean {
    return this.icecat !== undefined;
  }

  /**
   * Built-in catalogue only: by part number (mpn or alias), else a confident match on the model name.
   * Answers are memoised: the catalogue does not change while the process runs, and a fuzzy match
   * costs about a millisecond, more than the rest of a footprint.
   */
  findBuiltIn(brand: string | undefined, mpn: string | null, model: string | null): CatalogueMatch | undefined {
    const key = `${brand ?? ''}\u0000${mpn ?? ''}\u0000${model ?? ''}`.toLowerCase();
    if (this.builtInMatches.has(key)) return this.builtInMatches.get(key);
    if (this.builtInMatches.size >= 50_000) this.builtInMatches.clear();
    const match = this.matchBuiltIn(brand, mpn, model);
    this.builtInMatches.set(key, match);
    return match;
  }

  private matchBuiltIn(brand: string | undefined, mpn: string | null, model: string | null): CatalogueMatch | undefined {
    const byCode = mpn ? this.index.findByPartNumber(mpn, brand) : undefined;
    if (byCode) return this.builtIn(byCode, 'by part number');
    const name = model ?? mpn;
    const byModel = name ? this.index.matchModel(name, brand) : undefined;
    return byModel ? this.builtIn(byModel.entry, 'by model name') : undefined;
  }

  /**
   * The lookup chain's catalogue step: the external catalogue when configured (an outage falls
   * back to the built-in catalogue, noted in the source), then the built-in catalogue.
   */
  async find(brand: string | undefined, mpn: string | null, model: string | null): Promise<CatalogueMatch | undefined> {
    if (this.icecat && (mpn || (model && looksLikeGtin(model)))) {
      try {
        const external = await this.lookupExternal(brand, mpn ?? model!);
        if (external) return external;
      } catch (error) {
        if (!(error instanceof IcecatUnavailableError)) throw error;
        this.log.warn({ reason: error.reason }, 'external catalogue unavailable; using the built-in catalogue');
      }
    }
    return this.findBuiltIn(brand, mpn, model);
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
      source: { note: `Icecat product ${product.icecat_id}` },
    };
    return {
      entry,
      product_id: null,
      source: `external catalogue: Icecat product ${product.icecat_id} (${product.brand} ${product.mpn})`,
      icecat_id: product.icecat_id,
      icecat_category: product.icecat_category,
    };
  }

  private builtIn(entry: CatalogueEntry, how: string): CatalogueMatch {
    return {
      entry,
      product_id: this.productIds.get(productKey(entry.brand, entry.mpn)) ?? null,
      source: `${BUILT_IN_SOURCE}: ${entry.name} (${how})`,
    };
  }
}

const productKey = (brand: string, mpn: string) => `${brand.toLowerCase()}|${mpn.toLowerCase()}`;
