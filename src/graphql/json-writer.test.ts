import { describe, expect, it } from 'vitest';
import {
  graphql,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
} from 'graphql';
import { compileJsonWriter } from './json-writer.ts';

const Instant = new GraphQLScalarType({ name: 'Instant', serialize: (value) => (value as Date).toISOString() });
const Status = new GraphQLEnumType({ name: 'Status', values: { exact: { value: 1 }, none: { value: 0 } } });
const Part = new GraphQLObjectType({
  name: 'Part',
  fields: { weight: { type: new GraphQLNonNull(GraphQLFloat) }, name: { type: GraphQLString } },
});
// Fields deliberately not in alphabetical order, nor in the order of the value's own keys.
const Result = new GraphQLObjectType({
  name: 'Result',
  fields: {
    total: { type: new GraphQLNonNull(GraphQLFloat) },
    status: { type: Status },
    parts: { type: new GraphQLList(Part) },
    at: { type: Instant },
    id: { type: GraphQLID },
    note: { type: GraphQLString },
  },
});
const value = {
  note: 'he said "hi"\n',
  id: 42,
  at: new Date('2026-01-02T03:04:05Z'),
  parts: [{ name: 'battery', weight: 0.25, internal: true }, { weight: 1 }],
  status: 1,
  total: 12.5,
  internal: 'not in the schema',
};
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { result: { type: Result, resolve: () => value } } }),
});

describe('compileJsonWriter', () => {
  it('writes the text GraphQL execution and JSON.stringify make of a selection of every field', async () => {
    const executed = await graphql({ schema, source: '{ result { total status parts { weight name } at id note } }' });
    expect(compileJsonWriter(Result)(value)).toBe(JSON.stringify(executed.data!.result));
  });

  it('refuses what GraphQL would refuse: null for a non-null field, a value an enumeration does not have', () => {
    const write = compileJsonWriter(Result);
    expect(() => write({ ...value, total: null })).toThrow(/Result.total/);
    expect(() => write({ ...value, status: 7 })).toThrow();
  });

  it('writes a field with a resolver of its own from its parent, and refuses one that answers later', async () => {
    const Resolved = new GraphQLObjectType({
      name: 'Resolved',
      fields: { name: { type: GraphQLString }, upper: { type: GraphQLString, resolve: (p: { name: string }) => p.name.toUpperCase() } },
    });
    const executed = await graphql({
      schema: new GraphQLSchema({
        query: new GraphQLObjectType({ name: 'Query', fields: { r: { type: Resolved, resolve: () => ({ name: 'ab' }) } } }),
      }),
      source: '{ r { name upper } }',
    });
    expect(compileJsonWriter(Resolved)({ name: 'ab' })).toBe(JSON.stringify(executed.data!.r));
    const later = new GraphQLObjectType({ name: 'Later', fields: { a: { type: GraphQLString, resolve: async () => 'x' } } });
    expect(() => compileJsonWriter(later)({})).toThrow(/Later.a: its resolver answers later/);
  });

  it('compiles only what it can write without executing: no abstract type, no field with arguments', () => {
    const Union = new GraphQLUnionType({ name: 'Either', types: [Part] });
    expect(() => compileJsonWriter(Union)).toThrow(/abstract/);
    const withArgs = new GraphQLObjectType({
      name: 'WithArgs',
      fields: { a: { type: GraphQLString, args: { n: { type: GraphQLFloat } } } },
    });
    expect(() => compileJsonWriter(withArgs)).toThrow(/WithArgs.a takes arguments/);
  });
});
