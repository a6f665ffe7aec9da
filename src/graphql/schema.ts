import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
// One file per domain; each adds its types and root fields to the builder.
import '../reference/schema.ts';
import '../organizations/schema.ts';
import '../organizations/settings.ts';
import '../inventory/schema.ts';
import '../footprint/schema.ts';
import '../catalogue/schema.ts';
import '../factors/schema.ts';
import '../assets/schema.ts';
import '../scenarios/schema.ts';
import '../certificates/schema.ts';
import '../sbti/schema.ts';
import '../webhooks/schema.ts';
import '../exports/schema.ts';
import '../erasure/schema.ts';
import '../inventory/instruments-schema.ts';

// sortSchema false: fields keep their declared order, so every REST answer lists them as the schema declares them
// (the REST fast path writes that order too, compileJsonWriter); the printed SDL stays sorted.
export const schema = builder.toSchema({ sortSchema: false });

export const printedSchema = () => printSchema(lexicographicSortSchema(schema));
