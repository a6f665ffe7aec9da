import type { YogaInitialContext } from 'graphql-yoga';
import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { keyCaller } from '../auth/access.ts';
import { maxChars, TEXT_LIMITS } from '../validation/text.ts';
import { publicBase } from '../rest/public-url.ts';
import { certificateLinks, issueCertificate, revokeCertificate, type CertificateRow } from './service.ts';

// Certificates (docs/certificates.md): issue and revoke here (GraphQL and, through SOFA, REST);
// the PDF, the public verification page and the JWKS are hand-written routes (routes.ts).

/** The row and the base of its links, which depend on the request (PUBLIC_BASE_URL, else its origin). */
interface IssuedCertificate {
  row: CertificateRow;
  base: string;
}

const CertificateRef = builder.objectRef<IssuedCertificate>('Certificate').implement({
  description: 'An issued CO2 impact certificate (spec 2.8).',
  fields: (t) => ({
    id: t.id({ resolve: ({ row }) => row.id }),
    certificate_number: t.string({ description: '"LCF-" and 10 characters A-Z0-9', resolve: ({ row }) => row.certificate_number }),
    issued_at: t.field({ type: 'DateTime', resolve: ({ row }) => row.issued_at }),
    download_url: t.string({
      description: 'The PDF: GET with the same API key',
      resolve: ({ row, base }) => certificateLinks(base, row).download_url,
    }),
    verify_url: t.string({
      description: 'Public verification page; JSON with Accept: application/json',
      resolve: ({ row, base }) => certificateLinks(base, row).verify_url,
    }),
  }),
});

const RevokedCertificateRef = builder.objectRef<IssuedCertificate>('RevokedCertificate').implement({
  fields: (t) => ({
    id: t.id({ resolve: ({ row }) => row.id }),
    certificate_number: t.string({ resolve: ({ row }) => row.certificate_number }),
    revoked_at: t.field({ type: 'DateTime', resolve: ({ row }) => row.revoked_at! }),
    verify_url: t.string({ resolve: ({ row, base }) => certificateLinks(base, row).verify_url }),
  }),
});

/** The caller's organisation context for certificate work; Yoga merges the request into the context. */
function certificateContext(ctx: GraphQLContext) {
  const caller = keyCaller(ctx.caller);
  const request = (ctx as GraphQLContext & Partial<YogaInitialContext>).request!;
  return { prisma: ctx.prisma, caller, keys: ctx.services.certificateKeys, base: publicBase(request, ctx.services.config) };
}

builder.mutationFields((t) => ({
  issueCertificate: t.field({
    type: CertificateRef,
    description:
      'Issues a signed CO2 impact certificate for a stored calculation of your organisation (its calculation_id). ' +
      'Idempotent: while the calculation has a certificate that is not revoked, that one is returned; after a revocation a new one is issued.',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: {
        method: 'POST',
        path: '/certificate',
        summary: 'Issue a CO2 impact certificate',
        tags: ['Certificates'],
        idempotent: true,
        errors: { 422: 'The stored calculation lacks what a certificate states (CALCULATION_NOT_CERTIFIABLE)' },
      },
    },
    args: {
      calculation_id: t.arg.id({
        required: true,
        description: 'A stored calculation of your organisation (UUID)',
        ...maxChars(TEXT_LIMITS.id),
      }),
    },
    resolve: async (_root, { calculation_id }, ctx) => {
      const context = certificateContext(ctx);
      return { row: await issueCertificate(context, String(calculation_id)), base: context.base };
    },
  }),
  revokeCertificate: t.field({
    type: RevokedCertificateRef,
    description: 'Revokes a certificate of your organisation: verification then answers "revoked". Revoking again returns it unchanged.',
    authScopes: { organisation: true, writes: true },
    extensions: {
      rest: { method: 'POST', path: '/certificate/revoke', summary: 'Revoke a certificate', tags: ['Certificates'], idempotent: true },
    },
    args: { id: t.arg.id({ required: true, description: 'The certificate id (UUID)', ...maxChars(TEXT_LIMITS.id) }) },
    resolve: async (_root, { id }, ctx) => {
      const context = certificateContext(ctx);
      return { row: await revokeCertificate(context, String(id)), base: context.base };
    },
  }),
}));
