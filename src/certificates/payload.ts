import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import * as z from 'zod';
import { ApiError } from '../errors/api-error.ts';
import { CAR_KG_PER_KM, TREE_KG_PER_YEAR } from '../footprint/engine/constants.ts';
import { uncertaintyInterval } from '../footprint/engine/interval.ts';
import type { AvoidedImpacts, CertificateDataSource, CertificateFacts, CertificateStatement } from '../documents/views.ts';

/** The format of certificates issued now: each states its own calculation (footprint, savings or refurbishment). */
export const PAYLOAD_FORMAT = 'lcf-certificate/2';
/** Certificates issued before: the lifecycle footprint of the calculation's device, whatever its kind. Still verified and rendered. */
export const FOOTPRINT_ONLY_FORMAT = 'lcf-certificate/1';

/** The signed facts plus the format and the calculation they come from. Stored as issued; never recomputed. */
export type CertificatePayload = CertificateFacts & { format: typeof PAYLOAD_FORMAT; calculation_id: string };

const equivalents = z.object({ km_driving_avoided: z.number(), trees_year_equivalent: z.number() });
const criterionTotal = z.object({ total: z.number() });
/** The stored answer's impacts totals; a calculation stored before impacts existed has none. */
const storedImpacts = z
  .object({ adpe: criterionTotal, pe: criterionTotal })
  .nullish()
  .transform((i): AvoidedImpacts => (i ? { adpe_kg_sb_eq: i.adpe.total, pe_mj: i.pe.total } : null));

/** What a stored calculation's `result` (the API answer it was) must carry to be certified, by kind. */
const certifiable = {
  common: z.object({
    product: z.object({
      brand: z.string(),
      name: z.string(),
      mpn: z
        .string()
        .nullish()
        .transform((mpn) => mpn ?? null),
      category: z.string(),
    }),
    methodology: z.object({
      standard: z.string(),
      uncertainty_pct: z.number(),
      data_sources: z.array(z.string()),
      lifetime_years: z.number().optional(),
      allocation: z.unknown().optional(),
    }),
  }),
  savings: z.object({
    remaining_life_years: z.number(),
    avoided_co2_kg: z.number(),
    avoided_production_kg: z.number(),
    avoided_transport_kg: z.number(),
    additional_use_phase_kg: z.number(),
    equivalents,
    impacts: storedImpacts,
  }),
  refurbishment: z.object({
    grade: z.string(),
    grade_label: z.string(),
    reuse_country: z.string(),
    remaining_life_years: z.number(),
    overhead: z.object({ total_kg: z.number() }),
    swaps: z.array(z.object({ token: z.string(), production_kg: z.number() })),
    swaps_total_kg: z.number(),
    adjusted_use_phase: z.object({ reuse_grid_factor_kg_per_kwh: z.number(), additional_use_phase_kg: z.number() }),
    gross_avoided_kg: z.number(),
    net_savings_kg: z.number(),
    net_savings_pct: z.number(),
    break_even_years: z.number().nullable(),
    equivalents,
    impacts: storedImpacts,
  }),
};

export interface CertifiedCalculation {
  id: string;
  kind: 'footprint' | 'savings' | 'refurbishment';
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
  factors: {
    role: string;
    factor: { region_code: string; value: number; unit: string; source: string; source_version: string; valid_from: Date };
  }[];
}

const notCertifiable = (what: string) =>
  new ApiError(
    422,
    'CALCULATION_NOT_CERTIFIABLE',
    'Calculation cannot be certified',
    `calculation_id: the stored calculation has no ${what} record`,
  );

function parseResult<T>(schema: z.ZodType<T>, result: unknown, what: string): T {
  const parsed = schema.safeParse(result);
  if (!parsed.success) throw notCertifiable(what);
  return parsed.data;
}

/** The avoided mass in everyday terms, with the factors the engine divides by (src/footprint/engine/constants.ts). */
const EQUIVALENT_SOURCES: CertificateDataSource[] = [
  {
    label: `Driving equivalent: ${CAR_KG_PER_KM} kg CO2e/km`,
    source: 'UK DESNZ greenhouse gas conversion factors, average car, unknown fuel (0.168, rounded)',
    version: '2023',
    valid_from: null,
  },
  {
    label: `Tree equivalent: ${TREE_KG_PER_YEAR} kg CO2e/year`,
    source: 'Arbor Day Foundation: 48 lb CO2 a mature tree absorbs in a year',
    version: null,
    valid_from: null,
  },
];

/** What the calculation's kind states, from its stored answer (the one the API gave). */
function statementOf(calc: CertifiedCalculation, lifetimeYears: number | undefined, uncertaintyPct: number): CertificateStatement {
  if (calc.kind === 'savings') {
    const s = parseResult(certifiable.savings, calc.result, 'savings');
    const { equivalents: e, impacts, ...figures } = s;
    return { kind: 'savings', ...figures, ...e, avoided_impacts: impacts };
  }
  if (calc.kind === 'refurbishment') {
    const r = parseResult(certifiable.refurbishment, calc.result, 'refurbishment');
    return {
      kind: 'refurbishment',
      grade: r.grade,
      grade_label: r.grade_label,
      reuse_country: r.reuse_country,
      reuse_grid_factor_kg_per_kwh: r.adjusted_use_phase.reuse_grid_factor_kg_per_kwh,
      remaining_life_years: r.remaining_life_years,
      gross_avoided_kg: r.gross_avoided_kg,
      overhead_kg: r.overhead.total_kg,
      swaps: r.swaps.map(({ token, production_kg }) => ({ token, production_kg })),
      swaps_total_kg: r.swaps_total_kg,
      additional_use_phase_kg: r.adjusted_use_phase.additional_use_phase_kg,
      net_savings_kg: r.net_savings_kg,
      net_savings_pct: r.net_savings_pct,
      break_even_years: r.break_even_years,
      ...r.equivalents,
      avoided_impacts: r.impacts,
    };
  }
  return {
    kind: 'footprint',
    phases: {
      production_kg: calc.production_kg,
      transport_kg: calc.transport_kg,
      use_phase_kg: calc.use_phase_kg,
      end_of_life_kg: calc.end_of_life_kg,
    },
    total_kg_co2e: calc.total_kg_co2e,
    interval: uncertaintyInterval(calc.total_kg_co2e, uncertaintyPct),
    lifetime_years: lifetimeYears ?? null,
  };
}

/**
 * The grid factor behind the statement's figures: the country of use's for a footprint (use phase) and
 * for savings (the kept device's extra electricity); for a refurbishment the reuse country's only
 * (testing and use after refurbishment), which is the country of use's when no other was given.
 */
function gridSource(calc: CertifiedCalculation): CertificateDataSource[] {
  const byRole = new Map(calc.factors.map((f) => [f.role, f.factor]));
  const [label, factor] =
    calc.kind === 'refurbishment'
      ? ['Grid factor, country of reuse', byRole.get('reuse_grid') ?? byRole.get('use_grid')]
      : ['Grid factor, country of use', byRole.get('use_grid')];
  if (!factor) return [];
  return [
    {
      label: `${label} (${factor.region_code}): ${factor.value} ${factor.unit}`,
      source: factor.source,
      version: factor.source_version,
      valid_from: factor.valid_from.toISOString().slice(0, 10),
    },
  ];
}

export function certificatePayload(
  calc: CertifiedCalculation,
  issue: { certificate_number: string; issued_at: Date; sandbox: boolean },
): CertificatePayload {
  const { product, methodology } = parseResult(certifiable.common, calc.result, 'product or methodology');
  // A certificate states whole-life figures (docs/methodology.md, "Allocation over a duration").
  if (methodology.allocation !== undefined && methodology.allocation !== null) {
    throw new ApiError(
      422,
      'CALCULATION_NOT_CERTIFIABLE',
      'Calculation cannot be certified',
      'calculation_id: the stored calculation is allocated to a duration (methodology.allocation); certificates state whole-life figures: certify the calculation asked without duration_years and per_year',
    );
  }
  const statement = statementOf(calc, methodology.lifetime_years, methodology.uncertainty_pct);
  return {
    format: PAYLOAD_FORMAT,
    certificate_number: issue.certificate_number,
    issued_at: issue.issued_at.toISOString(),
    calculation_id: calc.id,
    organization_name: calc.organization.name,
    product,
    country: calc.country,
    statement,
    methodology: {
      standard: methodology.standard,
      engine_version: calc.engine_version,
      confidence: calc.confidence,
      uncertainty_pct: methodology.uncertainty_pct,
    },
    data_sources: [
      // Grid factors are cited from calculation_factors (with their vintages as columns), not from these lines.
      ...methodology.data_sources
        .filter((s) => !s.startsWith('grid factor '))
        .map((source) => ({ label: 'Product data', source, version: null, valid_from: null })),
      ...gridSource(calc),
      ...(statement.kind === 'footprint' ? [] : EQUIVALENT_SOURCES),
    ],
    sandbox: issue.sandbox,
  };
}

const phases = z.object({ production_kg: z.number(), transport_kg: z.number(), use_phase_kg: z.number(), end_of_life_kg: z.number() });
const sharedFacts = {
  certificate_number: z.string(),
  issued_at: z.string(),
  organization_name: z.string(),
  product: z.object({ brand: z.string(), name: z.string(), mpn: z.string().nullable(), category: z.string() }),
  country: z.string(),
  methodology: z.object({ standard: z.string(), engine_version: z.string(), confidence: z.string(), uncertainty_pct: z.number() }),
  data_sources: z.array(
    z.object({ label: z.string(), source: z.string(), version: z.string().nullable(), valid_from: z.string().nullable() }),
  ),
  sandbox: z.boolean(),
};
const withEquivalents = {
  km_driving_avoided: z.number(),
  trees_year_equivalent: z.number(),
  // Optional: format-2 certificates issued before ADPe and PE were certified do not have it.
  avoided_impacts: z.object({ adpe_kg_sb_eq: z.number(), pe_mj: z.number() }).nullable().optional(),
};

const currentFacts: z.ZodType<CertificateFacts> = z.object({
  ...sharedFacts,
  statement: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('footprint'),
      phases,
      total_kg_co2e: z.number(),
      interval: z.object({ low_kg: z.number(), high_kg: z.number() }),
      lifetime_years: z.number().nullable(),
    }),
    z.object({
      kind: z.literal('savings'),
      remaining_life_years: z.number(),
      avoided_co2_kg: z.number(),
      avoided_production_kg: z.number(),
      avoided_transport_kg: z.number(),
      additional_use_phase_kg: z.number(),
      ...withEquivalents,
    }),
    z.object({
      kind: z.literal('refurbishment'),
      grade: z.string(),
      grade_label: z.string(),
      reuse_country: z.string(),
      reuse_grid_factor_kg_per_kwh: z.number(),
      remaining_life_years: z.number(),
      gross_avoided_kg: z.number(),
      overhead_kg: z.number(),
      swaps: z.array(z.object({ token: z.string(), production_kg: z.number() })),
      swaps_total_kg: z.number(),
      additional_use_phase_kg: z.number(),
      net_savings_kg: z.number(),
      net_savings_pct: z.number(),
      break_even_years: z.number().nullable(),
      ...withEquivalents,
    }),
  ]),
});

/** Format 1 stated the lifecycle footprint at the top level, without its interval (derived with today's method) or lifetime. */
const footprintOnlyFacts = z.object({ ...sharedFacts, phases, total_kg_co2e: z.number() }).transform(
  ({ phases, total_kg_co2e, ...facts }): CertificateFacts => ({
    ...facts,
    statement: {
      kind: 'footprint',
      phases,
      total_kg_co2e,
      interval: uncertaintyInterval(total_kg_co2e, facts.methodology.uncertainty_pct),
      lifetime_years: null,
    },
  }),
);

/**
 * The facts a stored payload states, in either format; null when it is not shaped like either
 * (only possible for an altered certificate, whose stored facts may be anything).
 */
export function certificateFacts(payload: unknown): CertificateFacts | null {
  const format = (payload as { format?: unknown } | null)?.format;
  const schema = format === PAYLOAD_FORMAT ? currentFacts : format === FOOTPRINT_ONLY_FORMAT ? footprintOnlyFacts : undefined;
  const parsed = schema?.safeParse(payload);
  return parsed?.success ? parsed.data : null;
}

/** The bytes that are signed: RFC 8785 canonical JSON (sorted keys, no whitespace, ECMAScript numbers). */
export function canonicalBytes(payload: unknown): Buffer {
  return Buffer.from(canonicalize(payload) ?? 'null', 'utf8');
}

export const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');
