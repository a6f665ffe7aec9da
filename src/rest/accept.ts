/**
 * Whether a route that answers either JSON or a page/redirect answers JSON: when the Accept header names
 * `application/json` (parameters allowed) and does not name `text/html`. Browsers list text/html and
 * curl accepts any type, so both get the page or the redirect; an API client asks for JSON by name.
 */
export function wantsJson(request: Request): boolean {
  const types = (request.headers.get('accept') ?? '').split(',').map((range) => range.split(';')[0]!.trim().toLowerCase());
  return types.includes('application/json') && !types.includes('text/html');
}
