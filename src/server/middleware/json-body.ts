import type { Next } from 'koa';
import { errors, ValidationError } from '../../domain/errors.js';
import { problems } from '../../domain/validation/problems.js';
import { issue } from '../../domain/validation/validate.js';
import { closeConnectionAfterResponse } from '../close-connection.js';
import { jsonBoundsBreach } from '../json-bounds.js';
import { jsonErrorPosition } from '../json-error-position.js';
import type { ClinicContext } from '../state.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/** Whether a request's media type may carry a JSON body: JSON, `+json`, or none at all. */
function isJsonMediaType(ctx: ClinicContext): boolean {
  // Koa's type is the header up to ';', untrimmed: `application/json ; charset=utf-8` is JSON too.
  const type = ctx.request.type.trim();
  return type === '' || JSON_TYPE.test(type);
}

/** Reads the raw body, stopping (413) as soon as it passes `limitBytes`. */
async function readLimited(ctx: ClinicContext, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of ctx.req) {
    received += (chunk as Buffer).length;
    if (received > limitBytes) {
      // The unread rest of the body would otherwise be taken for the next request.
      closeConnectionAfterResponse(ctx);
      throw errors.payloadTooLarge(limitBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, received);
}

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

/**
 * Parses a JSON request body into `ctx.state.body`: 415 for another media type, 413 past the
 * limit (refused from Content-Length before reading when it can be), 422 for malformed JSON.
 */
export function jsonBody(limitBytes: number) {
  return async function jsonBodyMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    if (!isJsonMediaType(ctx)) throw errors.unsupportedMediaType('application/json');
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limitBytes) {
      closeConnectionAfterResponse(ctx);
      throw errors.payloadTooLarge(limitBytes);
    }
    ctx.state.body = parseJsonBody(await readLimited(ctx, limitBytes));
    await next();
  };
}
