/**
 * The parts of an OpenAPI document the service writes and completes: the REST interface builds it
 * (src/rest/openapi.ts, in OpenAPI 3.0 form, converted to 3.1 once at the end) and input validation
 * adds its text limits to it; hand-written routes declare their operation with the route (RouteDeclaration).
 */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  default?: unknown;
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  [keyword: string]: unknown;
}
export interface OpenApiParameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: OpenApiSchema;
}
export interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema?: OpenApiSchema }>;
  headers?: Record<string, unknown>;
}
export type Security = Record<string, string[]>[];
export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Security;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: OpenApiSchema }> };
  responses?: Record<string, OpenApiResponse>;
}
export interface OpenApiDocument {
  security?: Security;
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, OpenApiSchema>; [section: string]: unknown };
  [field: string]: unknown;
}
