/** Asset status values (Prisma enum AssetStatus), with the meaning documented in docs/assets.md. */
export const ASSET_STATUSES = {
  in_stock: 'Owned and available, not deployed (new stock, spare pool, awaiting redeployment)',
  in_use: 'Deployed to a person, site or service (the default for imports)',
  in_repair: 'Temporarily out of service for repair or maintenance',
  refurbished: 'Refurbished and ready for a further life, still held by the organisation',
  resold: 'Sold or handed on for reuse; no longer held by the organisation',
  recycled: 'Handed to a recycler for material recovery (end of life)',
  disposed: 'Otherwise disposed of or written off (end of life)',
} as const;

export type AssetStatus = keyof typeof ASSET_STATUSES;
export const ASSET_STATUS_VALUES = Object.keys(ASSET_STATUSES) as AssetStatus[];
export const DEFAULT_ASSET_STATUS: AssetStatus = 'in_use';

export const isAssetStatus = (value: string): value is AssetStatus => Object.hasOwn(ASSET_STATUSES, value);
