import { createHash } from 'node:crypto';

/** Text or an attribute value made safe for server-rendered HTML (the console, the certificate verification page). */
export const escapeHtml = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The Content-Security-Policy of the server-rendered pages: nothing but the page's own style sheet
 * (allowed by its hash), no script, never framed; forms may post only where `formAction` says.
 */
export function pagePolicy(style: string, formAction: "'self'" | "'none'"): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    `form-action ${formAction}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
