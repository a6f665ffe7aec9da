/**
 * The errors of the OData interface (docs/odata.md lists every code). On /v1/odata every error body is
 * the OData JSON error shape, which carries the service's ApiError body as its `innererror`.
 */
import { ApiError } from '../errors/api-error.ts';
import { ENTITY_SETS, allProperties, type EntitySetDef } from './entity-sets.ts';

/** What the interface supports, listed in the body of every 501. */
export const SUPPORTED = {
  query_options: ['$filter', '$select', '$orderby', '$top', '$skip', '$count', '$skiptoken', '$format=json'],
  operators: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'in', 'and', 'or', 'not', '( )'],
  functions: ['contains', 'startswith', 'endswith', 'tolower', 'toupper', 'year', 'month', 'day'],
  literals: [
    "'text' (quotes doubled inside)",
    'null',
    'true',
    'false',
    'numbers (also with a type suffix: 100D, 1.5M, 2F, 7L)',
    'YYYY-MM-DD',
    'date-times with offset',
    'GUIDs',
    "enumeration members ('in_use' or Service.AssetStatus'in_use')",
  ],
  requests: [
    'GET /v1/odata',
    'GET /v1/odata/$metadata',
    'GET /v1/odata/{EntitySet}',
    'GET /v1/odata/{EntitySet}(<key>)',
    'GET /v1/odata/{EntitySet}/$count',
  ],
} as const;

/** 501: valid OData the interface does not implement; the body adds the supported options. */
export class ODataNotImplemented extends ApiError {
  constructor(what: string) {
    super(501, 'ODATA_NOT_IMPLEMENTED', 'Not implemented', `${what} is not supported by this OData interface; see "supported" for what is`);
  }

  override toBody(): Record<string, unknown> {
    return { ...super.toBody(), supported: SUPPORTED };
  }
}

/** 400 for an expression that does not parse; `index` is 0-based in `text`, reported 1-based. */
export function syntaxError(option: string, text: string, index: number, reason = 'invalid syntax'): ApiError {
  const at = Math.max(0, Math.min(index, text.length));
  const excerpt = text.slice(Math.max(0, at - 20), at + 20);
  return new ApiError(400, 'ODATA_SYNTAX_ERROR', `Invalid ${option}`, `${option}: ${reason} at character ${at + 1} (near "${excerpt}")`);
}

export const unknownProperty = (option: string, name: string, set: EntitySetDef) =>
  new ApiError(
    400,
    'UNKNOWN_PROPERTY',
    `Unknown property '${name}'`,
    `${option}: '${name}' is not a property of ${set.name}; its properties are ${allProperties(set)
      .map((p) => p.name)
      .join(', ')}`,
  );

export const typeMismatch = (option: string, details: string) =>
  new ApiError(400, 'ODATA_TYPE_MISMATCH', `Invalid ${option}`, `${option}: ${details}`);

export const notQueryable = (option: string, name: string) =>
  new ApiError(
    400,
    'PROPERTY_NOT_QUERYABLE',
    `Property '${name}' cannot be used in ${option}`,
    `${option}: '${name}' is computed for each row; it can be selected but not filtered or sorted on`,
  );

export const entitySetNotFound = (name: string) =>
  new ApiError(
    404,
    'ENTITY_SET_NOT_FOUND',
    'Entity set not found',
    `'${name}' is not an entity set; the entity sets are ${ENTITY_SETS.map((s) => s.name).join(', ')}`,
  );

export const entityNotFound = (set: EntitySetDef, key: string) =>
  new ApiError(404, 'ENTITY_NOT_FOUND', 'Entity not found', `${set.name} has no entity with the key ${key}`);

export const notAcceptable = (offered: string) =>
  new ApiError(
    406,
    'NOT_ACCEPTABLE',
    'Not acceptable',
    `This resource is available as ${offered} only; ask for it in Accept (or send none, or */*)`,
  );

/**
 * The OData JSON error shape (OData JSON Format 4.0, section 21) of a service error body: the
 * service's code, its details sentence as the message clients show, and the service's whole error
 * body (spec 2.14: ApiError or the rate-limit error) as `innererror`.
 */
export function odataErrorBody(body: Record<string, unknown>, status: number): Record<string, unknown> {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const code = text(body.code) ?? `HTTP_${status}`;
  const message = text(body.details) ?? text(body.message) ?? text(body.error) ?? `Request failed with status ${status}`;
  return { error: { code, message, details: [], innererror: body } };
}
