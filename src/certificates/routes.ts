import { keyCaller } from '../auth/access.ts';
import { currentCaller } from '../auth/access-plugin.ts';
import { nextMinuteBoundary } from '../auth/quota/index.ts';
import { RateLimitError, invalidParameter } from '../errors/api-error.ts';
import { currentRequest } from '../observability/request-context.ts';
import { Router } from '../rest/router.ts';
import { publicBase } from '../rest/public-url.ts';
import { wantsJson } from '../rest/accept.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';
import { renderCertificatePdf } from '../documents/index.ts';
import type { Services } from '../services.ts';
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
  return new Router(VERIFY_BASE, VERIFY_HEADERS).on('GET', '/:number', async (request, { number }) => {
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
  });
}

/** GET /.well-known/jwks.json: every certificate public key, rotated-out ones included (RFC 7517 JWK set). */
export function createWellKnownRouter(services: Services): Router {
  return new Router(WELL_KNOWN_BASE).on('GET', '/jwks.json', async () => {
    await services.certificateKeys.refresh();
    return Response.json(services.certificateKeys.jwks, { headers: { 'Cache-Control': 'public, max-age=300' } });
  });
}

/**
 * GET /v1/certificate?id=: the certificate PDF, for the owning organisation (404 otherwise); a revoked one
 * says so on every page, an altered one is refused (409 CERTIFICATE_ALTERED). Mounted after
 * access control (key, quota) for GET only: POST /v1/certificate is the SOFA mutation. Hand-written because
 * the body is a binary PDF, which SOFA cannot answer.
 */
export function createCertificateDownloadRouter(services: Services): Router {
  return new Router(CERTIFICATE_PATH).on('GET', '/', { organisation: true }, async (request) => {
    const caller = keyCaller(currentCaller());
    const id = new URL(request.url).searchParams.get('id');
    if (id === null) throw invalidParameter('id', 'is required');
    checkText(id, 'id', { maxLength: TEXT_LIMITS.id });
    const prisma = services.scopes.forCaller(caller);
    const certificate = await findCertificate(prisma, id);
    const link = verifyUrl(publicBase(request, services.config), certificate.certificate_number);
    const pdf = await renderCertificatePdf(
      await certificateDocument({ prisma, caller, keys: services.certificateKeys }, certificate, link),
    );
    return new Response(new Uint8Array(pdf), {
      headers: {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${certificate.certificate_number}.pdf"`,
        'Cache-Control': 'private, no-store',
      },
    });
  });
}
