import type { Next } from 'koa';
import { errors } from '../../errors.js';
import { closeConnectionAfterResponse } from '../connections/close-connection.js';
import type { ClinicContext } from '../api/state.js';
import { parseJsonBody } from '../../domain/validation/json-body-text.js';

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
