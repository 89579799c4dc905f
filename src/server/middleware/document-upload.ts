import type { IncomingMessage } from 'node:http';
import type { RouterContext } from '@koa/router';
import type { Next } from 'koa';
import type { Db } from '../../db/open-database.js';
import { DocumentUpload, type DocumentStorage } from '../../domain/documents/upload-document.js';
import { AppError, errors, ValidationError } from '../../domain/errors.js';
import { problems } from '../../domain/validation/problems.js';
import { issue } from '../../domain/validation/validate.js';
import type { ServerConfig } from '../config.js';
import { closeConnectionAfterResponse } from '../close-connection.js';
import { clientWentAway } from './handle-errors.js';
import { MultipartError, multipartBoundary, readMultipartForm, type MultipartLimits } from '../multipart-form.js';
import type { ClinicState } from '../state.js';

/**
 * Bounds on everything in the form besides the document, so that a form's overhead is small and
 * known: a few text fields of at most 64 KiB and a few parts, each with at most 16 KiB of part
 * headers.
 */
export const FORM_LIMITS: MultipartLimits = {
  parts: 12,
  fields: 8,
  files: 4,
  fieldNameBytes: 100,
  fieldValueBytes: 64 * 1024,
  headerBytes: 16 * 1024,
  headerPairs: 16,
};

/**
 * An upper bound on a valid form's bytes besides the document: 12 parts × (16 KiB headers +
 * 64 KiB value) plus boundaries, rounded up. A body longer than the document limit plus this
 * holds a document over the limit (or junk), so it is refused without reading further.
 */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

const malformedForm = (reason: string, loc: (string | number)[] = ['body']) =>
  new ValidationError([issue(loc, problems.valueError(reason), null)]);

/**
 * The one place where what can go wrong while reading a form becomes a refusal of decisions.md
 * §1: a malformed form or one over a limit is the client's doing and a 422, never a 500. Refusals
 * the domain made, disk errors (they carry a `syscall`) and a client that went away
 * (ECONNRESET: logged as an aborted request) pass unchanged.
 */
function formError(thrown: unknown): unknown {
  if (!(thrown instanceof MultipartError)) return thrown;
  switch (thrown.reason) {
    case 'field_too_long':
      return malformedForm(`the field is longer than ${FORM_LIMITS.fieldValueBytes} bytes`, ['body', thrown.field ?? '']);
    case 'too_many_parts':
      return malformedForm(`the form has too many parts: at most ${FORM_LIMITS.parts}, ${FORM_LIMITS.fields} of them text fields`);
    case 'unnamed_field':
      return malformedForm('the form has a field without a usable name');
    default:
      return malformedForm('the multipart/form-data body is malformed or ended early');
  }
}

/** The request's bytes, refused (413) as soon as they pass `maxBytes`, whatever the form holds. */
async function* boundedBody(ctx: RouterContext<ClinicState>, maxBytes: number, limitBytes: number): AsyncGenerator<Buffer> {
  let received = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > maxBytes) {
      // Before the throw, which ends this loop and so destroys the request (close-connection.ts).
      closeConnectionAfterResponse(ctx);
      throw errors.documentTooLarge(limitBytes);
    }
    yield chunk;
  }
}

/** Adds a text field as multer did: a name sent twice holds a list (which the schema then refuses as not a string). */
function addField(form: Record<string, unknown>, name: string, value: string): void {
  const earlier = form[name];
  form[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
}

/**
 * Reads the multipart form of POST /patients/{patient_id}/documents into a DocumentUpload (left
 * on `ctx.state.upload`, the text fields on `ctx.state.form`), part by part as the bytes arrive:
 * the `file` part is streamed to the domain's temporary file, never held in memory whole; other
 * file parts are read past, as unknown fields are ignored.
 *
 * 415 for anything but multipart/form-data; 413 from Content-Length before reading when it is
 * decisive, else as soon as the document (or the whole body) passes its limit. A refusal before
 * the body was read to its end is answered at once with `Connection: close`, so the rest is never
 * taken for a next request. Any refusal discards the upload.
 */
export function receiveDocumentUpload(db: Db, config: ServerConfig) {
  const storage: DocumentStorage = { dataDir: config.dataDir, limitBytes: config.documentLimitBytes };
  const maxBodyBytes = storage.limitBytes + FORM_OVERHEAD_BYTES;

  return async function receiveDocumentUploadMiddleware(ctx: RouterContext<ClinicState>, next: Next): Promise<void> {
    // The declared type decides (ctx.is() would call a body-less multipart request "not multipart").
    if (ctx.request.type.trim().toLowerCase() !== 'multipart/form-data') throw errors.unsupportedMediaType('multipart/form-data');
    if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) {
      closeConnectionAfterResponse(ctx);
      throw errors.documentTooLarge(storage.limitBytes);
    }
    const upload = new DocumentUpload(db, storage, ctx.params.patient_id);
    const form: Record<string, unknown> = {};
    try {
      const boundary = multipartBoundary(ctx.get('Content-Type'));
      if (boundary === undefined) throw new MultipartError('malformed');
      for await (const part of readMultipartForm(boundedBody(ctx, maxBodyBytes, storage.limitBytes), boundary, FORM_LIMITS)) {
        if (part.kind === 'field') addField(form, part.name, part.value);
        else if (part.name === 'file') {
          await upload.receiveFile({ stream: part.data, filename: part.filename, contentType: part.contentType }, form);
        }
      }
    } catch (thrown) {
      const error = formError(thrown);
      const refusedBody = error instanceof AppError && error.status === 413;
      if ((refusedBody || !(ctx.req as IncomingMessage).complete) && !clientWentAway(ctx, error)) closeConnectionAfterResponse(ctx);
      await upload.discard();
      throw upload.withPathIssues(error);
    }
    ctx.state.upload = upload;
    ctx.state.form = form;
    await next();
  };
}
