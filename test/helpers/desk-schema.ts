import { assertMatchesSchema } from './contract.js';
import { jsonOf } from './desk-output.js';
import type { CliResult } from './run-cli.js';

// A file apart from desk-output.ts: importing contract.js builds the API's description, which most of its users do not need.

/** The JSON a command printed, which must exit 0 and be one of the API's own shapes, the schema `schema`. */
export function jsonAs<T = any>(schema: string, result: CliResult): T {
  const value = jsonOf<T>(result);
  assertMatchesSchema(schema, value);
  return value;
}
