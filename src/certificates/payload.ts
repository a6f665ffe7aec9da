import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import * as z from 'zod';
import { ApiError } from '../errors/api-error.ts';
import type { CertificateView } from '../documents/views.ts';

export const PAYLOAD_FORMAT = 'lcf-certificate/1';

/**
 * The signed facts of a certificate: the CertificateView's facts (so the PDF shows exactly what is
 * signed) plus the format and the calculation they come from. Stored as issued; never recomputed.
 */
export type CertificatePayload = Omit<CertificateView, 'verify_url' | 'key_id' | 'signature_fingerprint'> & {
  format: typeof PAYLOAD_FORMAT;
  calculation_id: string;
};

/** What a stored calculation must carry to be certified: the engine writes both into `result`. */
const certifiableResult = z.object({
  product: z.object({
    brand: z.string(),
    name: z.string(),
    mpn: z.string().nullish().transform((mpn) => mpn ?? null),
    category: z.string(),
  }),
  methodology: z.object({ standard: z.string(), uncertainty_pct: z.number(), data_sources: z.array(z.string()) }),
});

export interface CertifiedCalculation {
  id: string;
  engine_version: string;
  confidence: string;
  country: string;
  total_kg_co2e: number;
  production_kg: number;
  transport_kg: number;
  use_phase_kg: number;
  end_of_life_kg: number;
  result: unknown;
  organization: { name: string };
  factors: { role: string; factor: { region_code: string; value: number; unit: string; source: string; source_version: string; valid_from: Date } }[];
}

const FACTOR_ROLES: Record<string, string> = { use_grid: 'Grid factor, country of use', reuse_grid: 'Grid factor, country of reuse' };

export function certificatePayload(
  calc: CertifiedCalculation,
  issue: { certificate_number: string; issued_at: Date; sandbox: boolean },
): CertificatePayload {
  const parsed = certifiableResult.safeParse(calc.result);
  if (!parsed.success) {
    throw new ApiError(422, 'CALCULATION_NOT_CERTIFIABLE', 'Calculation cannot be certified', 'calculation_id: the stored calculation has no product or methodology record');
  }
  const { product, methodology } = parsed.data;
  return {
    format: PAYLOAD_FORMAT,
    certificate_number: issue.certificate_number,
    issued_at: issue.issued_at.toISOString(),
    calculation_id: calc.id,
    organization_name: calc.organization.name,
    product,
    country: calc.country,
    phases: {
      production_kg: calc.production_kg,
      transport_kg: calc.transport_kg,
      use_phase_kg: calc.use_phase_kg,
      end_of_life_kg: calc.end_of_life_kg,
    },
    total_kg_co2e: calc.total_kg_co2e,
    methodology: { standard: methodology.standard, engine_version: calc.engine_version, confidence: calc.confidence, uncertainty_pct: methodology.uncertainty_pct },
    data_sources: [
      // The grid factors are cited from calculation_factors below, with their vintages as columns.
      ...methodology.data_sources.filter((s) => !s.startsWith('grid factor ')).map((source) => ({ label: 'Product data', source, version: null, valid_from: null })),
      ...calc.factors.map(({ role, factor }) => ({
        label: `${FACTOR_ROLES[role] ?? role} (${factor.region_code}): ${factor.value} ${factor.unit}`,
        source: factor.source,
        version: factor.source_version,
        valid_from: factor.valid_from.toISOString().slice(0, 10),
      })),
    ],
    sandbox: issue.sandbox,
  };
}

/** The bytes that are signed: RFC 8785 canonical JSON (sorted keys, no whitespace, ECMAScript numbers). */
export function canonicalBytes(payload: unknown): Buffer {
  return Buffer.from(canonicalize(payload) ?? 'null', 'utf8');
}

export const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');
