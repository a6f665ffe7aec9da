import * as z from 'zod';
import { ApiError } from '../errors/api-error.ts';
import { invalidInput } from '../validation/schemas.ts';
import { parseJson } from '../kernel/json-text.ts';
import { refuseUnknown } from '../validation/strict-input.ts';

/** Parses and validates a JSON request body for hand-written routes; 400 naming the field (an undeclared one: UNKNOWN_PARAMETER) otherwise. */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S, { optional = false } = {}): Promise<z.infer<S>> {
  const text = await request.text();
  let body: unknown = {};
  if (text.trim() !== '') {
    body = parseJson(text);
  } else if (!optional) {
    throw new ApiError(400, 'INVALID_JSON', 'Request body is required', 'body: expected a JSON object');
  }
  // A field the schema does not declare is refused by name, as SOFA's routes refuse theirs.
  if (schema instanceof z.ZodObject && body !== null && typeof body === 'object' && !Array.isArray(body))
    refuseUnknown(Object.keys(body), Object.keys(schema.shape));
  return validateBody(schema, body);
}

/** A parsed body (JSON, or a console form's fields) checked against its schema; 400 naming each bad field. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidInput(parsed.error.issues);
  return parsed.data;
}
