/**
 * The parts of an OpenAPI 3.0 document the service writes and completes: the REST interface builds
 * it (src/rest/openapi.ts) and input validation adds its text limits to it.
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
interface OpenApiParameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: OpenApiSchema;
}
interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema?: OpenApiSchema }>;
  headers?: Record<string, unknown>;
}
export type Security = Record<string, string[]>[];
export interface OpenApiOperation {
  operationId?: string;
  description?: string;
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
