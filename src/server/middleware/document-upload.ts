import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import koaMulter from '@koa/multer';
import type { RouterContext } from '@koa/router';
import type { Next } from 'koa';
import multer from 'multer';
import type { Db } from '../../db/open-database.js';
import { DocumentUpload, type DocumentStorage } from '../../domain/documents/upload-document.js';
import { AppError, errors, ValidationError } from '../../domain/errors.js';
import { problems } from '../../domain/validation/problems.js';
import { issue } from '../../domain/validation/validate.js';
import type { ServerConfig } from '../config.js';
import { FilePartHeaderWatcher, multipartBoundary } from '../multipart-part-headers.js';
import { closeConnectionAfterResponse } from '../close-connection.js';
import type { ClinicState } from '../state.js';

/**
 * Bounds on everything in the form besides the document, so that a form's overhead is small and
 * known: a few text fields of at most 64 KiB and a few parts, each with at most 16 KiB of part
 * headers (busboy's own bound).
 */
const FORM_LIMITS = { fieldNameSize: 100, fieldSize: 64 * 1024, fields: 8, files: 4, parts: 12, headerPairs: 16 };

/**
 * An upper bound on a valid form's bytes besides the document: 12 parts × (16 KiB headers +
 * 64 KiB value) plus boundaries, rounded up. A body longer than the document limit plus this
 * holds a document over the limit (or junk), so it is refused without reading further.
 */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** The file object multer hands a storage engine; `stream` is there while the engine runs. */
interface FilePart {
  fieldname: string;
  originalname: string;
  mimetype: string;
  stream: Readable;
}

/** What the storage engine needs to know about the request whose file it is storing. */
interface PendingUpload {
  upload: DocumentUpload;
  /** Refuses the request at once, before the form has been read to its end. */
  refuse(error: AppError): void;
  /**
   * Why the domain refused the file, if it did. It outranks whatever multer reports: stopping
   * to read a file makes multer see the stream aborted.
   */
  fileRefusal?: AppError | ValidationError;
  /** Tells a file part without a Content-Type from one that declared text/plain. */
  partHeaders?: FilePartHeaderWatcher;
}

const formFields = (req: IncomingMessage): Record<string, unknown> => ({ ...(req as IncomingMessage & { body?: object }).body });

const malformedForm = (reason: string, loc: (string | number)[] = ['body']) =>
  new ValidationError([issue(loc, problems.valueError(reason), null)]);

/** A plain programming error (as opposed to the client's bytes being wrong): let it be a logged 500. */
const isBug = (error: unknown) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;

/**
 * The one place where what can go wrong while reading a multipart form becomes a refusal of
 * decisions.md §1: multer's coded limits, busboy's parse errors and a client that disconnects or
 * ends the body early are the client's doing and never a 500. Disk errors (they carry a
 * `syscall`) and bugs pass through unchanged, to be logged as INTERNAL.
 */
function formError(thrown: unknown, limitBytes: number): unknown {
  if (thrown instanceof AppError || thrown instanceof ValidationError) return thrown;
  if (thrown instanceof multer.MulterError) {
    switch (thrown.code) {
      case 'LIMIT_FILE_SIZE':
        return errors.documentTooLarge(limitBytes);
      case 'LIMIT_FIELD_VALUE':
        return malformedForm(`the field is longer than ${FORM_LIMITS.fieldSize} bytes`, ['body', thrown.field ?? '']);
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
      case 'LIMIT_FILE_COUNT':
        return malformedForm(`the form has too many parts: at most ${FORM_LIMITS.parts}, ${FORM_LIMITS.fields} of them text fields`);
      case 'LIMIT_UNEXPECTED_FILE':
        return malformedForm('unexpected file', ['body', thrown.field ?? '']);
      default:
        return malformedForm('the form has a field without a usable name');
    }
  }
  if (typeof (thrown as NodeJS.ErrnoException | undefined)?.syscall === 'string' || isBug(thrown)) return thrown;
  if (thrown instanceof Error) return malformedForm('the multipart/form-data body is malformed or ended early');
  return thrown;
}

/**
 * Reads the multipart form of POST /patients/{patient_id}/documents through @koa/multer into a
 * DocumentUpload (left on `ctx.state.upload`, the text fields on `ctx.state.form`), streaming the
 * file to the domain's temporary file: it is never held in memory whole.
 *
 * 415 for anything but multipart/form-data; 413 from Content-Length before reading when it is
 * decisive, else as soon as the document passes the limit, answered at once with
 * `Connection: close` so that the rest of the body is never read. Any refusal discards the upload.
 */
export function receiveDocumentUpload(db: Db, config: ServerConfig) {
  const storage: DocumentStorage = { dataDir: config.dataDir, limitBytes: config.documentLimitBytes };
  const maxBodyBytes = storage.limitBytes + FORM_OVERHEAD_BYTES;
  const pending = new WeakMap<IncomingMessage, PendingUpload>();

  const engine = {
    _handleFile(req: IncomingMessage, file: FilePart, callback: (error?: unknown, info?: object) => void): void {
      const entry = pending.get(req);
      if (!entry) return callback(new Error('a file arrived for a request without a pending upload'));
      // busboy says text/plain for a part that declared no type; the domain's default is octet-stream.
      const declared = entry.partHeaders?.nextFileDeclaredType();
      const contentType = declared === false ? undefined : file.mimetype;
      entry.upload.receiveFile({ stream: file.stream, filename: file.originalname, contentType }, formFields(req)).then(
        () => callback(null, {}),
        (error: unknown) => {
          if (error instanceof AppError || error instanceof ValidationError) entry.fileRefusal = error;
          // multer would drain the rest of the body before reporting this; answer now instead.
          if (error instanceof AppError && error.code === 'DOCUMENT_TOO_LARGE') entry.refuse(error);
          callback(error);
        },
      );
    },
    _removeFile(req: IncomingMessage, _file: unknown, callback: (error: Error | null) => void): void {
      const entry = pending.get(req);
      if (!entry) return callback(null);
      entry.upload.discard().then(() => callback(null), callback);
    },
  };

  const options = {
    storage: engine,
    // Only the `file` part is the document; other file parts are skipped, as unknown fields are.
    fileFilter: (_req: IncomingMessage, file: { fieldname: string }, accept: (error: null, keep: boolean) => void) =>
      accept(null, file.fieldname === 'file'),
    limits: FORM_LIMITS,
    // The domain reduces the name itself, the same way for the CLI; busboy's own reduction would
    // turn a name like `..` into "no file at all".
    preservePath: true,
    // Browsers and curl send file names as raw UTF-8; busboy would read them as Latin-1.
    defParamCharset: 'utf8',
    // Sees each chunk before busboy does: counts the whole body, so that junk around the
    // document (huge skipped parts) is bounded too, and watches the part headers.
    streamHandler(req: IncomingMessage, busboy: NodeJS.WritableStream) {
      const entry = pending.get(req);
      const boundary = multipartBoundary(req.headers['content-type']);
      if (entry && boundary !== undefined) entry.partHeaders = new FilePartHeaderWatcher(boundary);
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBodyBytes) entry?.refuse(errors.documentTooLarge(storage.limitBytes));
        entry?.partHeaders?.push(chunk);
      });
      req.pipe(busboy);
    },
  };
  const parseForm = koaMulter(options as unknown as Parameters<typeof koaMulter>[0]).any();

  return async function receiveDocumentUploadMiddleware(ctx: RouterContext<ClinicState>, next: Next): Promise<void> {
    // The declared type decides (ctx.is() would call a body-less multipart request "not multipart").
    if (ctx.request.type.trim().toLowerCase() !== 'multipart/form-data') throw errors.unsupportedMediaType('multipart/form-data');
    if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) {
      closeConnectionAfterResponse(ctx);
      throw errors.documentTooLarge(storage.limitBytes);
    }
    const upload = new DocumentUpload(db, storage, ctx.params.patient_id);
    let refuse: (error: AppError) => void = () => undefined;
    const refused = new Promise<never>((_resolve, reject) => (refuse = reject));
    const entry: PendingUpload = { upload, refuse };
    pending.set(ctx.req, entry);
    try {
      // multer settles only after the body is read to its end; a refusal does not wait for that.
      await Promise.race([parseForm(ctx, async () => undefined), refused]);
    } catch (thrown) {
      const error = formError(entry.fileRefusal ?? thrown, storage.limitBytes);
      // The unread rest of the body cannot be left for a next request on this connection.
      if (error instanceof AppError && error.status === 413) closeConnectionAfterResponse(ctx);
      await upload.discard();
      throw error;
    }
    ctx.state.upload = upload;
    // @koa/multer moves the text fields from req.body to ctx.request.body.
    ctx.state.form = { ...(ctx.request as { body?: object }).body };
    await next();
  };
}
