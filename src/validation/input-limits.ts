import { getNamedType, isInputObjectType, isScalarType, type GraphQLField, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { textLimitOf } from './text-plugin.ts';
import type { OpenApiDocument, OpenApiSchema } from '../kernel/openapi-types.ts';

const isText = (type: GraphQLInputType) => {
  const named = getNamedType(type);
  return isScalarType(named) && (named.name === 'String' || named.name === 'ID');
};

/**
 * Adds `maxLength` to the OpenAPI document SOFA generates (parameters, request bodies and input
 * schemas), which carries only the types and descriptions of the arguments.
 */
export function addOpenApiLimits(
  document: OpenApiDocument,
  schema: GraphQLSchema,
  routeFields: Map<string, GraphQLField<unknown, unknown>>,
): OpenApiDocument {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const field = routeFields.get(`${method.toUpperCase()} ${path}`);
      if (!field) continue;
      for (const parameter of operation.parameters ?? []) {
        const arg = field.args.find((a) => a.name === parameter.name);
        if (arg && isText(arg.type)) setMaxLength(parameter.schema, textLimitOf(arg).maxLength);
      }
      const properties = operation.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      for (const [name, property] of Object.entries(properties)) {
        const arg = field.args.find((a) => a.name === name);
        if (arg && isText(arg.type)) setMaxLength(property, textLimitOf(arg).maxLength);
      }
    }
  }
  for (const [name, component] of Object.entries(document.components?.schemas ?? {})) {
    const type = schema.getType(name);
    if (!isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const property = component.properties?.[field.name];
      if (property && isText(field.type)) setMaxLength(property, textLimitOf(field).maxLength);
    }
  }
  return document;
}

function setMaxLength(schema: OpenApiSchema | undefined, maxLength: number): void {
  if (!schema) return;
  if (schema.type === 'array' && schema.items) setMaxLength(schema.items, maxLength);
  else if (schema.type === 'string') schema.maxLength = maxLength;
}
