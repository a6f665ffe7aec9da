import { randomInt, randomUUID } from 'node:crypto';
import { isUniqueViolation, type Prisma, type PrismaClient } from '../db/database.ts';
import { ApiError, notFound } from '../errors/api-error.ts';
import type { KeyCaller } from '../auth/caller.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { checkUuid } from '../validation/text.ts';
import { REST_BASE } from '../kernel/paths.ts';
import type { CertificateView } from '../documents/views.ts';
import { SIGNATURE_ALGORITHM, type CertificateKeys } from './keys.ts';
import { canonicalBytes, certificateFacts, certificatePayload, sha256Hex } from './payload.ts';

export const CERTIFICATE_PREFIX = 'LCF-';
const NUMBER_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const NUMBER_LENGTH = 10;
export const CERTIFICATE_NUMBER = new RegExp(`^${CERTIFICATE_PREFIX}[A-Z0-9]{${NUMBER_LENGTH}}$`);
/** Draws before giving up: with 36^10 numbers, even one collision is unlikely for billions of certificates. */
const NUMBER_ATTEMPTS = 5;

export const AUDIT_EVENTS = {
  issued: 'certificate.issued',
  revoked: 'certificate.revoked',
  altered: 'certificate.altered_refused',
} as const;

/** `LCF-` and 10 characters of A-Z0-9, each drawn from the CSPRNG without modulo bias (crypto.randomInt). */
export function newCertificateNumber(): string {
  let number = CERTIFICATE_PREFIX;
  for (let i = 0; i < NUMBER_LENGTH; i++) number += NUMBER_ALPHABET[randomInt(NUMBER_ALPHABET.length)];
  return number;
}

export type CertificateRow = Prisma.CertificateGetPayload<object>;

export interface CertificateContext {
  /** The caller's organisation-scoped client: another organisation's rows are invisible through it. */
  prisma: PrismaClient;
  caller: KeyCaller;
  keys: CertificateKeys;
}

/** One body for a certificate that is missing and one of another organisation: existence does not leak. */
const certificateNotFound = (id: string) => notFound('Certificate', `id: no certificate ${id} in this organisation`);

const certificateAudit = (caller: KeyCaller, event: string, row: { id: string; certificate_number: string; calculation_id: string }) =>
  auditEntry(
    caller,
    event,
    { type: 'certificate', id: row.id },
    { certificate_number: row.certificate_number, calculation_id: row.calculation_id },
  );

/**
 * Certifies a stored calculation of the caller's organisation. Idempotent: while the calculation has a
 * certificate that is not revoked, that certificate is answered again; after a
 * revocation a new one, with a new number, is issued. A partial unique index (one unrevoked
 * certificate per calculation) keeps this exact when two requests race.
 */
export async function issueCertificate(ctx: CertificateContext, calculationId: string): Promise<CertificateRow> {
  checkUuid('calculation_id', calculationId);
  const { prisma, caller, keys } = ctx;
  const inForce = () => prisma.certificate.findFirst({ where: { calculation_id: calculationId, revoked_at: null } });
  const existing = await inForce();
  if (existing) return existing;

  const calculation = await prisma.calculation.findUnique({
    where: { id: calculationId },
    include: { organization: { select: { name: true } }, factors: { include: { factor: true }, orderBy: { role: 'asc' } } },
  });
  if (!calculation) throw notFound('Calculation', `calculation_id: no stored calculation ${calculationId} in this organisation`);

  for (let attempt = 0; attempt < NUMBER_ATTEMPTS; attempt++) {
    const issuedAt = new Date();
    const payload = certificatePayload(calculation, {
      certificate_number: newCertificateNumber(),
      issued_at: issuedAt,
      sandbox: caller.environment === 'test',
    });
    const bytes = canonicalBytes(payload);
    const row = {
      id: randomUUID(),
      org_id: caller.orgId,
      calculation_id: calculation.id,
      asset_id: calculation.asset_id,
      certificate_number: payload.certificate_number,
      issued_at: issuedAt,
      content_sha256: sha256Hex(bytes),
      payload: payload as unknown as Prisma.InputJsonValue,
      signature: keys.sign(bytes),
      key_id: keys.signingKid,
    };
    try {
      const [certificate] = await prisma.$transaction([
        prisma.certificate.create({ data: row }),
        prisma.auditLog.create({ data: certificateAudit(caller, AUDIT_EVENTS.issued, row) }),
      ]);
      return certificate;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Either a concurrent request certified this calculation first (answer its certificate), or the number was taken (draw again).
      const raced = await inForce();
      if (raced) return raced;
    }
  }
  throw new Error(`no unused certificate number after ${NUMBER_ATTEMPTS} draws`);
}

/** A certificate of the caller's organisation; 404 for a missing or foreign one, 400 for an id that is no UUID. */
export async function findCertificate(prisma: PrismaClient, id: string): Promise<CertificateRow> {
  checkUuid('id', id);
  const certificate = await prisma.certificate.findUnique({ where: { id } });
  if (!certificate) throw certificateNotFound(id);
  return certificate;
}

/** Marks a certificate revoked (audit-logged once); revoking it again answers it unchanged. */
export async function revokeCertificate(ctx: CertificateContext, id: string): Promise<CertificateRow> {
  const { prisma, caller } = ctx;
  const certificate = await findCertificate(prisma, id);
  if (certificate.revoked_at) return certificate;
  try {
    const [revoked] = await prisma.$transaction([
      // Only while still in force: of two concurrent revocations one updates and logs, the other finds it revoked.
      prisma.certificate.update({ where: { id, revoked_at: null }, data: { revoked_at: new Date() } }),
      prisma.auditLog.create({ data: certificateAudit(caller, AUDIT_EVENTS.revoked, certificate) }),
    ]);
    return revoked;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'P2025') throw error;
    return findCertificate(prisma, id);
  }
}

/** Hex SHA-256 of the raw signature bytes: a short handle printed on the PDF and shown by verification. */
export const signatureFingerprint = (signature: string) => sha256Hex(Buffer.from(signature, 'base64url'));

export const CERTIFICATE_PATH = `${REST_BASE}/certificate`;
export const VERIFY_BASE = '/verify';

/** The public verification page of a certificate number. */
export const verifyUrl = (base: string, number: string) => `${base}${VERIFY_BASE}/${number}`;

/** The certificate's links: the PDF (keyed) and the public verification page. */
export function certificateLinks(base: string, certificate: { id: string; certificate_number: string }) {
  return { download_url: `${base}${CERTIFICATE_PATH}?id=${certificate.id}`, verify_url: verifyUrl(base, certificate.certificate_number) };
}

/**
 * Whether the stored certificate is still what was signed: its payload matches its signature under
 * the key it names, its content hash, and its own number (a payload moved from another row is not).
 */
export async function isIntact(keys: CertificateKeys, certificate: CertificateRow): Promise<boolean> {
  // A key another instance created after this one started is read from the database first.
  await keys.learn(certificate.key_id);
  const bytes = canonicalBytes(certificate.payload);
  return (
    keys.verify(bytes, certificate.signature, certificate.key_id) &&
    sha256Hex(bytes) === certificate.content_sha256 &&
    (certificate.payload as { certificate_number?: unknown } | null)?.certificate_number === certificate.certificate_number
  );
}

/** 409 for a certificate whose stored facts fail their signature: it is never served as a document. */
const certificateAltered = (certificate: { certificate_number: string }, link: string) =>
  new ApiError(
    409,
    'CERTIFICATE_ALTERED',
    'Certificate altered',
    `id: the stored facts of certificate ${certificate.certificate_number} no longer match their signature; do not rely on them (verification at ${link} says altered)`,
  );

/**
 * What the PDF shows of an intact certificate: its signed facts, its state and how to check them.
 * Throws 409 CERTIFICATE_ALTERED (and writes an audit row) when the stored certificate fails its signature.
 */
export async function certificateDocument(ctx: CertificateContext, certificate: CertificateRow, link: string): Promise<CertificateView> {
  const facts = (await isIntact(ctx.keys, certificate)) ? certificateFacts(certificate.payload) : null;
  if (!facts) {
    await ctx.prisma.auditLog.create({ data: certificateAudit(ctx.caller, AUDIT_EVENTS.altered, certificate) });
    throw certificateAltered(certificate, link);
  }
  return {
    ...facts,
    verify_url: link,
    key_id: certificate.key_id,
    signature_fingerprint: signatureFingerprint(certificate.signature),
    revoked_at: certificate.revoked_at?.toISOString() ?? null,
  };
}

export type Verdict = 'valid' | 'altered' | 'revoked' | 'unknown';

export interface Verification {
  verdict: Verdict;
  certificate_number: string;
  /** The stored facts; for `altered` they are what the database holds now, not what was signed. */
  payload: unknown;
  signature: string | null;
  key_id: string | null;
  algorithm: typeof SIGNATURE_ALGORITHM;
  signature_fingerprint: string | null;
  revoked_at: string | null;
  sandbox: boolean;
}

/**
 * The public check behind verify_url: the stored payload must still match its signature under the
 * published key it names, and be this certificate's (its number, its content hash). Altered wins over
 * revoked: facts that no longer match their signature are the stronger warning.
 */
export async function verifyCertificate(prisma: PrismaClient, keys: CertificateKeys, number: string): Promise<Verification> {
  const certificate = CERTIFICATE_NUMBER.test(number)
    ? await prisma.certificate.findUnique({ where: { certificate_number: number } })
    : null;
  if (!certificate) {
    return {
      verdict: 'unknown',
      certificate_number: number,
      payload: null,
      signature: null,
      key_id: null,
      algorithm: SIGNATURE_ALGORITHM,
      signature_fingerprint: null,
      revoked_at: null,
      sandbox: false,
    };
  }
  const intact = await isIntact(keys, certificate);
  return {
    verdict: !intact ? 'altered' : certificate.revoked_at ? 'revoked' : 'valid',
    certificate_number: certificate.certificate_number,
    payload: certificate.payload,
    signature: certificate.signature,
    key_id: certificate.key_id,
    algorithm: SIGNATURE_ALGORITHM,
    signature_fingerprint: signatureFingerprint(certificate.signature),
    revoked_at: certificate.revoked_at?.toISOString() ?? null,
    sandbox: (certificate.payload as { sandbox?: unknown } | null)?.sandbox === true,
  };
}
