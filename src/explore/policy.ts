// Security headers of the browser pages that run the bundled GraphiQL and Swagger UI: their
// scripts, styles and requests come from this server only; fonts and icons inside their style
// sheets are data: URLs.

const policy = (directives: Record<string, string>) => {
  const all: Record<string, string> = {
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data:",
    'font-src': "'self' data:",
    'connect-src': "'self'",
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
    ...directives,
  };
  return Object.entries(all)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
};

/** Swagger UI: nothing inline at all. */
export const REFERENCE_POLICY = policy({});

/**
 * GraphiQL: Monaco's editor workers, loaded from this server. Monaco positions every editor line with
 * style elements and attributes it writes at run time, so styles (only styles) may be inline.
 */
export const GRAPHIQL_POLICY = policy({ 'style-src': "'self' 'unsafe-inline'", 'worker-src': "'self'" });

/** On every page: never framed, no content sniffing, no Referer leaving it. */
export const PAGE_HEADERS = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};
