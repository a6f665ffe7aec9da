/** The errors of the OData interface (docs/odata.md lists every code). Bodies are the service's ApiError body. */
import { ApiError } from '../errors/api-error.ts';
import { ENTITY_SETS, allProperties, type EntitySetDef } from './entity-sets.ts';

/** What the interface supports, listed in the body of every 501. */
export const SUPPORTED = {
  query_options: ['$filter', '$select', '$orderby', '$top', '$skip', '$count', '$skiptoken', '$format=json'],
  operators: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'and', 'or', 'not', '( )'],
  functions: ['contains', 'startswith', 'endswith'],
  literals: ["'text' (quotes doubled inside)", 'null', 'true', 'false', 'numbers', 'YYYY-MM-DD', 'date-times with offset', 'GUIDs', "enumeration members ('in_use' or Service.AssetStatus'in_use')"],
  requests: ['GET /v1/odata', 'GET /v1/odata/$metadata', 'GET /v1/odata/{EntitySet}'],
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
    `${option}: '${name}' is not a property of ${set.name}; its properties are ${allProperties(set).map((p) => p.name).join(', ')}`,
  );

export const typeMismatch = (option: string, details: string) => new ApiError(400, 'ODATA_TYPE_MISMATCH', `Invalid ${option}`, `${option}: ${details}`);

export const notQueryable = (option: string, name: string) =>
  new ApiError(400, 'PROPERTY_NOT_QUERYABLE', `Property '${name}' cannot be used in ${option}`, `${option}: '${name}' is computed for each row; it can be selected but not filtered or sorted on`);

export const entitySetNotFound = (name: string) =>
  new ApiError(404, 'ENTITY_SET_NOT_FOUND', 'Entity set not found', `'${name}' is not an entity set; the entity sets are ${ENTITY_SETS.map((s) => s.name).join(', ')}`);
