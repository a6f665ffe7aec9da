import { keyCaller } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { nextMinuteBoundary } from '../auth/quota/index.ts';
import { RateLimitError, invalidParameter } from '../errors/api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import { Router } from '../rest/router.ts';
import { publicBase } from '../rest/public-url.ts';
import { wantsJson } from '../rest/accept.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';
import { RENDERER_BUSY, renderCertificatePdf } from '../documents/index.ts';
import type { Services } from '../services.ts';
import type { OpenApiOperation } from '../kernel/openapi-types.ts';
import { SIGNATURE_ALGORITHM } from './keys.ts';
import { VERIFY_CONTENT_SECURITY_POLICY, verificationPage } from './page.ts';
import { CERTIFICATE_PATH, VERIFY_BASE, certificateDocument, findCertificate, verifyCertificate, verifyUrl } from './service.ts';

export const WELL_KNOWN_BASE = '/.well-known';
export const JWKS_PATH = `${WELL_KNOWN_BASE}/jwks.json`;
/** Verification lookups per client IP and minute, found or not: certificate numbers cannot be walked faster. */
export const VERIFY_LOOKUPS_PER_MINUTE = 30;

const VERIFY_HEADERS = {
  'Content-Security-Policy': VERIFY_CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // A revocation shows at once: nothing is cached, and the answer depends on Accept.
  'Cache-Control': 'no-store',
  Vary: 'Accept',
};

/**
 * GET /verify/:number, public: the verdict on a certificate (valid, altered, revoked, unknown) as an
 * HTML page, or as JSON with Accept: application/json. Outside /v1: no key, no request quota; its own
 * per-IP limit instead. Hand-written: an HTML page and a status that follows the verdict.
 */
export function createVerifyRouter(services: Services): Router {
  return new Router(VERIFY_BASE, VERIFY_HEADERS).on(
    'GET',
    '/:number',
    async (request, { number }) => {
      const ip = currentRequest()?.ip ?? 'unknown';
      // Counted before the lookup, whatever it finds: an unknown number costs the same as a known one.
      const wait = await services.quota.lookupWait('certificate-verify', ip, VERIFY_LOOKUPS_PER_MINUTE);
      if (wait !== undefined) {
        throw new RateLimitError(
          'RATE_LIMITED_VERIFY',
          `At most ${VERIFY_LOOKUPS_PER_MINUTE} certificate verifications a minute from one address; retry after ${wait} s.`,
          wait,
          { limit: VERIFY_LOOKUPS_PER_MINUTE, reset: Math.floor(nextMinuteBoundary(new Date()).getTime() / 1000) },
        );
      }
      // The public check reads across organisations by number: the one unscoped read of certificates.
      const verification = await verifyCertificate(services.db.prisma, services.certificateKeys, number!.toUpperCase());
      const status = verification.verdict === 'unknown' ? 404 : 200;
      // An unknown number is a 404 like any other, with the code every error body carries.
      if (wantsJson(request))
        return Response.json(status === 404 ? { ...verification, code: 'CERTIFICATE_UNKNOWN' } : verification, { status });
      const base = publicBase(request, services.config);
      const page = verificationPage(verification, { jwks: `${base}${JWKS_PATH}`, self: verifyUrl(base, verification.certificate_number) });
      return new Response(page, { status, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
    },
    { openApi: VERIFY_OPENAPI },
  );
}

/** The verdict's JSON form (Verification in service.ts); a 404 adds `code`. */
const VERIFICATION_SCHEMA = {
  type: 'object',
  required: [
    'verdict',
    'certificate_number',
    'payload',
    'signature',
    'key_id',
    'algorithm',
    'signature_fingerprint',
    'revoked_at',
    'sandbox',
  ],
  properties: {
    verdict: { type: 'string', enum: ['valid', 'altered', 'revoked', 'unknown'] },
    certificate_number: { type: 'string' },
    payload: {
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description: 'The signed facts (null when unknown); for `altered`, what the database holds now',
    },
    signature: { type: 'string', nullable: true, description: 'Base64url Ed25519 signature of the RFC 8785 canonical payload' },
    key_id: { type: 'string', nullable: true, description: 'kid of the signing key in /.well-known/jwks.json' },
    algorithm: { type: 'string', enum: [SIGNATURE_ALGORITHM] },
    signature_fingerprint: { type: 'string', nullable: true },
    revoked_at: { type: 'string', format: 'date-time', nullable: true },
    sandbox: { type: 'boolean', description: 'Issued with a test key: no real organisation stands behind it' },
    code: { type: 'string', enum: ['CERTIFICATE_UNKNOWN'], description: 'On a 404 only' },
  },
};

const VERIFY_OPENAPI: OpenApiOperation = {
  operationId: 'verifyCertificate',
  summary: 'Verify a certificate by its number',
  description:
    'Public, no API key and no request quota: at most ' +
    `${VERIFY_LOOKUPS_PER_MINUTE} lookups a minute per client address (429 RATE_LIMITED_VERIFY). ` +
    'With Accept: application/json the verdict as JSON (this operation); otherwise the HTML page a QR code opens. ' +
    "The path is outside /v1: it is a certificate's verify_url.",
  tags: ['Verification'],
  parameters: [
    {
      name: 'number',
      in: 'path',
      required: true,
      description: 'The certificate number (case-insensitive)',
      schema: { type: 'string', maxLength: 64 },
    },
    {
      name: 'Accept',
      in: 'header',
      required: true,
      description: 'application/json for this JSON form; a browser gets the HTML page',
      schema: { type: 'string', enum: ['application/json'] },
    },
  ],
  responses: {
    200: { description: 'The verdict: valid, altered or revoked', content: { 'application/json': { schema: VERIFICATION_SCHEMA } } },
    404: {
      description: 'No certificate has this number (verdict unknown, code CERTIFICATE_UNKNOWN)',
      content: { 'application/json': { schema: VERIFICATION_SCHEMA } },
    },
    429: { description: 'Too many verifications from this address (RATE_LIMITED_VERIFY)' },
  },
};

/** GET /.well-known/jwks.json: every certificate public key, rotated-out ones included (RFC 7517 JWK set). */
export function createWellKnownRouter(services: Services): Router {
  return new Router(WELL_KNOWN_BASE).on(
    'GET',
    '/jwks.json',
    async () => {
      await services.certificateKeys.refresh();
      return Response.json(services.certificateKeys.jwks, { headers: { 'Cache-Control': 'public, max-age=300' } });
    },
    { openApi: JWKS_OPENAPI },
  );
}

const JWKS_OPENAPI: OpenApiOperation = {
  operationId: 'certificateKeys',
  summary: 'Public keys that sign certificates (JWK set)',
  description: 'Every certificate signing key, rotated-out ones included (RFC 7517); public, cached 5 minutes.',
  tags: ['Verification'],
  responses: {
    200: {
      description: 'The JWK set',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['keys'],
            properties: {
              keys: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
                  properties: {
                    kty: { type: 'string', enum: ['OKP'] },
                    crv: { type: 'string', enum: ['Ed25519'] },
                    x: { type: 'string', description: 'The public key, base64url' },
                    kid: { type: 'string', description: 'RFC 7638 thumbprint; certificates name it as key_id' },
                    alg: { type: 'string', enum: [SIGNATURE_ALGORITHM] },
                    use: { type: 'string', enum: ['sig'] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/**
 * GET /v1/certificate?id=: the certificate PDF, for the owning organisation (404 otherwise); a revoked one
 * says so on every page, an altered one is refused (409 CERTIFICATE_ALTERED). Mounted after
 * access control (key, quota) for GET only: POST /v1/certificate is the SOFA mutation. Hand-written because
 * the body is a binary PDF, which SOFA cannot answer.
 */
export function createCertificateDownloadRouter(services: Services): Router {
  return new Router(CERTIFICATE_PATH).on('GET', '/', { organisation: true }, downloadCertificate(services), {
    openApi: CERTIFICATE_PDF_OPENAPI,
  });
}

const downloadCertificate = (services: Services) => async (request: Request) => {
  const caller = keyCaller(currentCaller());
  const id = new URL(request.url).searchParams.get('id');
  if (id === null) throw invalidParameter('id', 'is required');
  checkText(id, 'id', { maxLength: TEXT_LIMITS.id });
  const prisma = services.scopes.forCaller(caller);
  const certificate = await findCertificate(prisma, id);
  const link = verifyUrl(publicBase(request, services.config), certificate.certificate_number);
  const pdf = await renderCertificatePdf(await certificateDocument({ prisma, caller, keys: services.certificateKeys }, certificate, link));
  return new Response(new Uint8Array(pdf), {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${certificate.certificate_number}.pdf"`,
      'Cache-Control': 'private, no-store',
    },
  });
};

const CERTIFICATE_PDF_OPENAPI: OpenApiOperation = {
  operationId: 'certificatePdf',
  summary: 'Download a certificate as PDF',
  description:
    "The certificate's PDF (its download_url), for the organisation that issued it. A revoked certificate says so on every page; " +
    'one whose stored facts no longer match their signature is refused (409 CERTIFICATE_ALTERED).',
  tags: ['Certificates'],
  parameters: [
    { name: 'id', in: 'query', required: true, description: 'The certificate id', schema: { type: 'string', maxLength: TEXT_LIMITS.id } },
  ],
  responses: {
    200: { description: 'The certificate', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
    409: { description: 'The stored facts no longer match their signature (CERTIFICATE_ALTERED)' },
    503: { description: RENDERER_BUSY },
  },
};
