import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parseInstant(value: unknown, name: string, dateOnly: boolean): Date {
  // ISO 8601 date-times fit in 40 characters; longer input is refused without being parsed or echoed.
  if (typeof value !== 'string' || value.length > 40 || (dateOnly && !DATE_ONLY.test(value))) {
    throw new GraphQLError(`${name} must be ${dateOnly ? 'a date YYYY-MM-DD' : 'an ISO 8601 date-time'}`);
  }
  const date = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  // A day the month does not have (2021-02-30) would roll over into the next month: refused like an invalid one.
  if (Number.isNaN(date.getTime()) || (dateOnly && date.toISOString().slice(0, 10) !== value))
    throw new GraphQLError(`${name} is not a valid ${dateOnly ? 'date' : 'date-time'}: ${value}`);
  return date;
}

const serializeInstant = (dateOnly: boolean) => (value: unknown) => {
  const date = value instanceof Date ? value : new Date(String(value));
  const iso = date.toISOString();
  return dateOnly ? iso.slice(0, 10) : iso;
};

builder.scalarType('DateTime', {
  description: 'ISO 8601 date-time, e.g. 2026-01-31T12:00:00.000Z',
  serialize: serializeInstant(false),
  parseValue: (value) => parseInstant(value, 'DateTime', false),
  parseLiteral: (ast) => parseInstant(ast.kind === Kind.STRING ? ast.value : null, 'DateTime', false),
  extensions: { jsonSchema: { type: 'string', format: 'date-time' } },
});

builder.scalarType('Date', {
  description: 'Calendar date YYYY-MM-DD (UTC)',
  serialize: serializeInstant(true),
  parseValue: (value) => parseInstant(value, 'Date', true),
  parseLiteral: (ast) => parseInstant(ast.kind === Kind.STRING ? ast.value : null, 'Date', true),
  extensions: { jsonSchema: { type: 'string', format: 'date' } },
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  // Any JSON value: no type (SOFA's default for a custom scalar would be an object).
  extensions: { jsonSchema: {} },
});

builder.scalarType('Long', {
  description: 'Whole number that may pass 2^31 (byte and row counts), as a JSON number up to 2^53 - 1',
  serialize: (value) => {
    const number = Number(value);
    if (!Number.isSafeInteger(number)) throw new GraphQLError(`Long cannot represent ${String(value)}`);
    return number;
  },
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('Long must be a whole number up to 2^53 - 1');
    return value;
  },
  // OpenAPI (SOFA) reads a custom scalar's JSON schema from here.
  extensions: { jsonSchema: { type: 'integer', format: 'int64' } },
});
