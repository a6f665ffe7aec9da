import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLInputObjectType, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { getNamedType, isEnumType, isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import type { OpenApiOperation, OpenApiSchema } from '../kernel/openapi-types.ts';

/**
 * What a field's OpenAPI schema says beyond its GraphQL type, declared next to the field with
 * openApi() and applied by preciseComponents. GraphQL types stay as they are where changing them
 * would change behaviour (items checked one by one, inputs accepted in any case).
 */
export interface OpenApiDeclaration {
  /** An input the server refuses to do without (the item it belongs to is refused), though GraphQL's type leaves it nullable for per-item checks. */
  required?: true;
  /** A String field (or list of them) whose values are a closed list: an enum type of the GraphQL schema by name, or a named list of the code. */
  values?: string | NamedValues;
  /** A JSON field's schema (a map: `{ type: 'object', additionalProperties: … }`). */
  schema?: OpenApiSchema;
}

/** A closed list of the code, documented as the component `name`. */
export interface NamedValues {
  name: string;
  values: readonly string[];
  description?: string;
}

type Options = { extensions?: Readonly<Record<string, unknown>> | undefined; [option: string]: unknown };

/** Pothos field options declaring `declared`, merged with other options that set extensions (`openApi({ required: true }, maxChars(100))`). */
export function openApi(declared: OpenApiDeclaration, ...options: Options[]) {
  const extensions = Object.assign({}, ...options.map((o) => o.extensions), { openApi: declared }) as Record<string, unknown>;
  return { ...Object.assign({}, ...options), extensions };
}

type Field = GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument;
const declarationOf = (field: Field) => field.extensions?.openApi as OpenApiDeclaration | undefined;
const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * Makes the components of GraphQL object and input types say what the server does: every property
 * of an output type is required, as a REST body is a selection of every field (a nullable one may
 * be null, never absent); an input is required when its type is non-null or it is declared so;
 * enum values refer to their named component (added if SOFA left it out), closed lists of the code
 * become named enums, JSON fields get their declared schema. Runs before nullable fields are marked.
 */
export function preciseComponents(schemas: Record<string, OpenApiSchema>, schema: GraphQLSchema): void {
  for (const [name, component] of Object.entries(schemas)) {
    const type = schema.getType(name);
    if (!isObjectType(type) && !isInputObjectType(type)) continue;
    const properties = component.properties ?? {};
    for (const field of Object.values<Field>(type.getFields())) {
      const property = properties[field.name];
      if (property) properties[field.name] = preciseProperty(field, property, schemas, schema, !isNonNullType(field.type));
    }
    const required = requiredProperties(type, component);
    if (required.length) component.required = required;
  }
}

function requiredProperties(type: GraphQLObjectType | GraphQLInputObjectType, component: OpenApiSchema): string[] {
  const present = Object.keys(component.properties ?? {});
  if (isObjectType(type)) return present;
  const declared = Object.values(type.getFields())
    .filter((field) => declarationOf(field)?.required || (isNonNullType(field.type) && field.defaultValue === undefined))
    .map((field) => field.name);
  return present.filter((name) => declared.includes(name) || component.required?.includes(name));
}

/**
 * A property (or a parameter or body field from a route's argument) as precise as its field declares;
 * `nullableLater`: a component property completeOpenApi will mark nullable.
 */
export function preciseProperty(
  field: Field,
  property: OpenApiSchema,
  schemas: Record<string, OpenApiSchema>,
  schema: GraphQLSchema,
  nullableLater = false,
): OpenApiSchema {
  const named = getNamedType(field.type);
  const declared = declarationOf(field);
  const values = isEnumType(named) ? named.name : declared?.values;
  if (values !== undefined) {
    const $ref = ref(namedEnum(values, schemas, schema));
    if (property.type === 'array') return { ...property, items: { $ref } };
    const { description } = property;
    // A nullable component property is wrapped in allOf by completeOpenApi's nullable(): the enum's type stays beside it.
    if (nullableLater) return { type: 'string', ...(description ? { description } : {}), $ref };
    // OpenAPI 3.0 ignores what stands beside a $ref: a description keeps its place in an allOf.
    return description ? { description, allOf: [{ $ref }] } : { $ref };
  }
  if (declared?.schema) {
    const { type: _any, ...annotations } = property;
    return { ...annotations, ...declared.schema };
  }
  return property;
}

/** The component of an enum: a GraphQL enum type's (SOFA adds only those its routes reach) or a list of the code's. */
function namedEnum(values: string | NamedValues, schemas: Record<string, OpenApiSchema>, schema: GraphQLSchema): string {
  if (typeof values !== 'string') {
    schemas[values.name] ??= {
      type: 'string',
      enum: [...values.values],
      ...(values.description ? { description: values.description } : {}),
    };
    if (JSON.stringify(schemas[values.name]!.enum) !== JSON.stringify(values.values))
      throw new Error(`OpenAPI: ${values.name} is declared with other values elsewhere`);
    return values.name;
  }
  const type = schema.getType(values);
  if (!isEnumType(type)) throw new Error(`OpenAPI: ${values} is no enum type of the schema`);
  schemas[values] ??= {
    title: values,
    type: 'string',
    enum: type.getValues().map((value) => value.name),
    ...(type.description ? { description: type.description } : {}),
  };
  return values;
}

/** A route's parameters and body fields as precise as its arguments declare (closed lists, required inputs). */
export function preciseArguments(
  operation: OpenApiOperation,
  field: GraphQLField<unknown, unknown>,
  schemas: Record<string, OpenApiSchema>,
  schema: GraphQLSchema,
): void {
  const argument = (name: string) => field.args.find((a) => a.name === name);
  for (const parameter of operation.parameters ?? []) {
    const arg = argument(parameter.name);
    if (!arg || !parameter.schema) continue;
    // A parameter's description stands beside its schema, which then can be a plain reference.
    const { description, ...typed } = parameter.schema;
    const precise = preciseProperty(arg, typed, schemas, schema);
    if (precise !== typed) {
      parameter.schema = precise;
      if (description) parameter.description ??= description;
    }
    if (declarationOf(arg)?.required) parameter.required = true;
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  for (const [name, property] of Object.entries(body?.properties ?? {})) {
    const arg = argument(name);
    if (!arg) continue;
    body!.properties![name] = preciseProperty(arg, property, schemas, schema);
    if (declarationOf(arg)?.required && !body!.required?.includes(name)) {
      body!.required = [...(body!.required ?? []), name];
      operation.requestBody!.required = true;
    }
  }
}
