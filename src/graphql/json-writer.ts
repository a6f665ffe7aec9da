import { isLeafType, isListType, isNonNullType, isObjectType, type GraphQLField, type GraphQLOutputType } from 'graphql';

/** Writes a resolved value as the JSON text GraphQL's execution and JSON.stringify would make of it. */
export type JsonWriter = (value: unknown) => string;

/**
 * How a field's value is read from its parent: Pothos's exposed property, the field's own name under GraphQL's
 * default resolver, or the field's own resolver, given only its parent (no arguments, context or info): it
 * must answer at once from the parent (a promise throws).
 */
function readerOf(parent: string, field: GraphQLField<unknown, unknown>): (object: Record<string, unknown>) => unknown {
  const exposed = field.extensions.pothosExposedField;
  const property = typeof exposed === 'string' ? exposed : field.resolve ? undefined : field.name;
  if (property !== undefined) return (object) => object[property];
  // Pothos's resolver as written, without its plugins' wrappers (they need the context).
  const resolve = (field.extensions.pothosOriginalResolve ?? field.resolve) as (parent: unknown, args: object) => unknown;
  return (object) => {
    const value = resolve(object, {});
    if (value instanceof Promise)
      throw new TypeError(`${parent}.${field.name}: its resolver answers later; only values at hand can be written`);
    return value;
  };
}

/**
 * Compiles, once, a writer of `type`'s values in the schema's field order, recursively through objects
 * and lists, scalars and enumerations serialised as GraphQL serialises them. What executing a selection
 * of all the type's fields (SOFA's REST answer) would answer, without executing: a field added to the
 * type is written in its place. A value GraphQL would refuse (null for a non-null field, a scalar its
 * serialize rejects) throws.
 */
export function compileJsonWriter(type: GraphQLOutputType): JsonWriter {
  return compile(type, String(type));
}

function compile(type: GraphQLOutputType, path: string): JsonWriter {
  if (isNonNullType(type)) {
    const write = compileNullable(type.ofType, path);
    return (value) => {
      if (value === null || value === undefined) throw new TypeError(`${path}: null for a non-null field`);
      return write(value);
    };
  }
  const write = compileNullable(type, path);
  return (value) => (value === null || value === undefined ? 'null' : write(value));
}

function compileNullable(type: GraphQLOutputType, path: string): JsonWriter {
  if (isListType(type)) {
    const item = compile(type.ofType, `${path}[]`);
    return (value) => {
      if (typeof value !== 'object' || !(Symbol.iterator in (value as object))) throw new TypeError(`${path}: not a list`);
      return `[${Array.from(value as Iterable<unknown>, item).join(',')}]`;
    };
  }
  if (isLeafType(type)) return (value) => JSON.stringify(type.serialize(value));
  if (isObjectType(type)) {
    const fields = Object.values(type.getFields()).map((field, i) => {
      if (field.args.length > 0)
        throw new TypeError(`${type.name}.${field.name} takes arguments: only argument-less fields can be written without executing`);
      // Each field's text starts with what precedes its value: `{"name":` for the first, `,"name":` for the others.
      return {
        prefix: `${i === 0 ? '{' : ','}${JSON.stringify(field.name)}:`,
        read: readerOf(type.name, field),
        write: compile(field.type, `${path}.${field.name}`),
      };
    });
    return (value) => {
      const object = value as Record<string, unknown>;
      let json = '';
      for (const { prefix, read, write } of fields) json += prefix + write(read(object));
      return fields.length === 0 ? '{}' : `${json}}`;
    };
  }
  throw new TypeError(`${path}: ${String(type)} is abstract (an interface or union): its object type is only known by executing`);
}
