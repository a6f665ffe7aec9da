import {
  defaultFieldResolver,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { checkText, DEFAULT_MAX_LENGTH, type TextLimit } from './text.ts';
import type { OpenApiDocument, OpenApiSchema } from '../kernel/openapi-types.ts';

type Input = GraphQLArgument | GraphQLInputField;

const isText = (type: GraphQLInputType) => {
  const named = getNamedType(type);
  return isScalarType(named) && (named.name === 'String' || named.name === 'ID');
};

/** The declared limit of a String/ID input (maxChars), else the default. */
export function textLimitOf(input: Input): TextLimit {
  return (input.extensions?.textLimit as TextLimit | undefined) ?? { maxLength: DEFAULT_MAX_LENGTH };
}

/**
 * Applies the text rules to every String and ID input of the schema, in place, so GraphQL and
 * the REST routes SOFA derives from it share them: each such argument and input field states its
 * limit in its description (so SDL, GraphiQL and OpenAPI show it), and every field taking one
 * checks the coerced values before its resolver runs, naming the field (`products[3].country`).
 */
export function applyInputLimits(schema: GraphQLSchema): GraphQLSchema {
  const describe = (input: Input) => {
    if (!isText(input.type)) return;
    const note = `At most ${textLimitOf(input).maxLength} characters.`;
    if (!input.description?.includes(note)) input.description = input.description ? `${input.description.replace(/\.?$/, '.')} ${note}` : note;
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isInputObjectType(type)) Object.values(type.getFields()).forEach(describe);
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      field.args.forEach(describe);
      if (field.args.some((arg) => takesText(arg.type, new Set()))) wrapResolver(field);
    }
  }
  return schema;
}

function takesText(type: GraphQLInputType, seen: Set<string>): boolean {
  if (isText(type)) return true;
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  seen.add(named.name);
  return Object.values(named.getFields()).some((f) => takesText(f.type, seen));
}

function wrapResolver(field: GraphQLField<unknown, unknown>): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  const args = field.args;
  field.resolve = (source, values, context, info) => {
    for (const arg of args) checkValue(values[arg.name], arg.type, arg, arg.name);
    return resolve(source, values, context, info);
  };
}

function checkValue(value: unknown, type: GraphQLInputType, input: Input, path: string): void {
  if (value === null || value === undefined) return;
  if (isNonNullType(type)) return checkValue(value, type.ofType, input, path);
  if (isListType(type)) {
    if (Array.isArray(value)) value.forEach((item, i) => checkValue(item, type.ofType, input, `${path}[${i}]`));
    return;
  }
  if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) checkValue((value as Record<string, unknown>)[field.name], field.type, field, `${path}.${field.name}`);
    return;
  }
  if (typeof value === 'string' && isText(type)) checkText(value, path, textLimitOf(input));
}

/**
 * Adds `maxLength` to the OpenAPI document SOFA generates (parameters, request bodies and input
 * schemas), which carries only the types and descriptions of the arguments.
 */
export function addOpenApiLimits(document: OpenApiDocument, schema: GraphQLSchema, routeFields: Map<string, GraphQLField<unknown, unknown>>): OpenApiDocument {
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
