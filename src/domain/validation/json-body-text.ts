import { ValidationError } from '../../errors.js';
import { jsonBoundsBreach } from './json-bounds.js';
import { jsonErrorPosition } from './json-error-position.js';
import { problems } from './problems.js';
import { issue } from './validate.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON.parse with the failure reported as pydantic's `json_invalid` at the byte position. An
 * empty body is no body (undefined): the use case reports it `missing` together with what is
 * wrong in the path and headers, as FastAPI does; only a malformed body is answered on its own.
 * A text past JSON_BOUNDS (nesting, members of an object, values) is refused as `json_invalid`
 * where it passes them, before JSON.parse spends up to seconds on it. The desk reads
 * `create-patient --file` with it too.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ValidationError([issue(['body', 0], problems.jsonInvalid('the body is not valid UTF-8'), {})]);
  }
  const breach = jsonBoundsBreach(text);
  if (breach) throw new ValidationError([issue(['body', breach.position], problems.jsonInvalid(breach.error), {})]);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ValidationError([issue(['body', jsonErrorPosition(text)], problems.jsonInvalid(message), {})]);
  }
}
