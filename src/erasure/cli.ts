/**
 * The erasure commands of `lcf` (src/cli/main.ts), through the server's API with an API key:
 * - `lcf blancco connect --key KEY --base-url URL [--country CC]`: the portal key is read from
 *   BLANCCO_API_KEY (not a flag: flags end up in shell history and process lists);
 * - `lcf blancco sync --key KEY [--only-successful] [--since YYYY-MM-DD] [--country CC] [--batch N]`: syncs batch
 *   after batch (following `continuation`) until the portal has no more reports.
 */
import { apiRequest } from '../cli/api-request.ts';
import { REST_BASE } from '../kernel/paths.ts';

interface Target {
  baseUrl: string;
  key: string;
}

export async function connectBlancco(target: Target, options: { baseUrl: string; apiKey: string; country?: string }) {
  return apiRequest(target, 'PUT', `${REST_BASE}/blancco/connection`, {
    base_url: options.baseUrl,
    api_key: options.apiKey,
    default_country: options.country ?? null,
  });
}

export interface SyncTotals {
  synced: number;
  skipped: number;
  errors: number;
  batches: number;
  sync_run_ids: string[];
  errors_detail: { uuid: string | null; brand: string | null; model: string | null; error: string }[];
}

export async function syncBlancco(
  target: Target,
  filters: { onlySuccessful?: boolean; sinceDate?: string; country?: string; limit?: number },
  onBatch: (totals: SyncTotals) => void = () => {},
): Promise<SyncTotals> {
  const totals: SyncTotals = { synced: 0, skipped: 0, errors: 0, batches: 0, sync_run_ids: [], errors_detail: [] };
  let continuation: string | null = null;
  do {
    const body: Record<string, unknown> = {
      limit: filters.limit,
      ...(continuation
        ? { continuation }
        : { onlySuccessful: filters.onlySuccessful ?? false, sinceDate: filters.sinceDate, country: filters.country }),
    };
    const result = await apiRequest(target, 'POST', `${REST_BASE}/blancco/sync`, body);
    totals.synced += result.synced;
    totals.skipped += result.skipped;
    totals.errors += result.errors;
    totals.batches++;
    totals.sync_run_ids.push(result.sync_run_id);
    for (const item of result.details)
      if (item.status === 'error') totals.errors_detail.push({ uuid: item.uuid, brand: item.brand, model: item.model, error: item.error });
    onBatch(totals);
    continuation = result.continuation;
  } while (continuation);
  return totals;
}
