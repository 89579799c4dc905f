import type { IncomingMessage } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import koaMulter from '@koa/multer';
import type { RouterContext } from '@koa/router';
import type { Next } from 'koa';
import multer from 'multer';
import type { Db } from '../../db/open-database.js';
import { DocumentUpload, type DocumentStorage } from '../../domain/documents/upload-document.js';
import { AppError, errors, ValidationError } from '../../errors.js';
import { problems } from '../../domain/validation/problems.js';
import { issue } from '../../domain/validation/validate.js';
import type { CommitGroups } from '../writes/commit-groups.js';
import type { ServerConfig } from '../config.js';
import { closeConnectionAfterResponse } from '../connections/close-connection.js';
import type { ClinicState } from '../api/state.js';
import { apiCaller } from '../api/api-caller.js';

/**
 * Bounds on everything in the form besides the document, so that a form's overhead is small and
 * known: a few text fields of at most 64 KiB and a few parts, each with at most 16 KiB of part
 * headers (busboy's own bound) in at most 16 lines.
 */
export const FORM_LIMITS = { fieldNameSize: 100, fieldSize: 64 * 1024, fields: 8, files: 4, parts: 12, headerPairs: 16 } as const;

/**
 * An upper bound on a valid form's bytes besides the document: 12 parts × (16 KiB headers +
 * 64 KiB value) plus boundaries, rounded up. A body longer than the document limit plus this
 * holds a document over the limit (or junk), so it is refused without reading further.
 */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** What the storage engine needs to know about the request whose file it is storing. */
interface PendingUpload {
  upload: DocumentUpload;
  /** The streams of the files handed to the domain, ended when the form is refused. */
  fileStreams: Readable[];
  /** Refuses the request at once, before the form has been read to its end. */
  refuse(error: AppError): void;
  /**
   * Why the domain refused or failed to store the file (a 413, a second file, a full disk), if it
   * did. It outranks whatever multer reports: a file the domain stopped reading is a stream
   * closed early to multer, which reports that first.
   */
  fileFailure?: unknown;
}

const malformedForm = (reason: string, loc: (string | number)[] = ['body']) =>
  new ValidationError([issue(loc, problems.valueError(reason), null)]);

/** A plain programming error (as opposed to the client's bytes being wrong): let it be a logged 500. */
const isBug = (error: unknown) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;

/** Multer's error codes for a form over one of FORM_LIMITS' counts. */
const TOO_MANY = new Set(['LIMIT_PART_COUNT', 'LIMIT_FIELD_COUNT', 'LIMIT_FILE_COUNT']);

/**
 * The one place where what can go wrong while reading a form becomes a refusal of decisions.md
 * §1: multer's coded limits and busboy's parse errors are the client's doing and a 422, never a
 * 500; a client that went away mid-form is logged as an aborted request (ECONNRESET). Refusals
 * the domain made, disk errors (they carry a `syscall`) and bugs pass unchanged.
 */
function formError(thrown: unknown, req: IncomingMessage): unknown {
  if (thrown instanceof AppError || thrown instanceof ValidationError) return thrown;
  if (thrown instanceof multer.MulterError) {
    if (thrown.code === 'LIMIT_FILE_SIZE') return thrown; // mapped by the caller, which knows the limit
    if (thrown.code === 'LIMIT_FIELD_VALUE') {
      return malformedForm(`the field is longer than ${FORM_LIMITS.fieldSize} bytes`, ['body', thrown.field ?? '']);
    }
    if (TOO_MANY.has(thrown.code)) {
      return malformedForm(`the form has too many parts: at most ${FORM_LIMITS.parts}, ${FORM_LIMITS.fields} of them text fields`);
    }
    return malformedForm('the form has a field without a usable name');
  }
  if (typeof (thrown as NodeJS.ErrnoException | undefined)?.syscall === 'string' || isBug(thrown)) return thrown;
  if (!req.complete && req.socket.destroyed) return Object.assign(new Error('the client went away mid-upload'), { code: 'ECONNRESET' });
  if (thrown instanceof Error) {
    // busboy's parse errors carry no code. The one that today's clients meet is a part header
    // with a control character: fetch's FormData writes a file name's control characters raw.
    return malformedForm(
      'the multipart/form-data body is malformed or ended early; a part header may hold no control character but tab ' +
        "(send such a file name percent-encoded, as filename*=utf-8''…)",
    );
  }
  return thrown;
}

/**
 * Reads the multipart form of POST /patients/{patient_id}/documents with @koa/multer (busboy)
 * into a DocumentUpload (left on `ctx.state.upload`, the text fields on `ctx.state.form`): a
 * storage engine streams the `file` part to the domain's temporary file, never into memory
 * whole; other file parts are read past, as unknown fields are ignored.
 *
 * 415 for anything but multipart/form-data; 413 from Content-Length before reading when it is
 * decisive, else as soon as the document (or the whole body) passes its limit, answered at once
 * with `Connection: close`, so the unread rest is never taken for a next request. Any other
 * answer comes after the body was read to its end (an epilogue after the closing boundary is
 * read and dropped), so the connection stays usable. Any refusal discards the upload.
 */
export function receiveDocumentUpload(db: Db, commits: CommitGroups, config: ServerConfig) {
  const storage: DocumentStorage = { dataDir: config.dataDir, limitBytes: config.documentLimitBytes };
  const maxBodyBytes = storage.limitBytes + FORM_OVERHEAD_BYTES;
  const pending = new WeakMap<IncomingMessage, PendingUpload>();

  const engine: multer.StorageEngine = {
    _handleFile(req, file, callback) {
      const entry = pending.get(req);
      if (!entry) return callback(new Error('a file arrived for a request without a pending upload'));
      const fields = { ...(req as IncomingMessage & { body?: object }).body };
      entry.fileStreams.push(file.stream);
      // decisions.md §6: the type as busboy reports it, text/plain for a part that declares none.
      entry.upload.receiveFile({ stream: file.stream, filename: file.originalname, contentType: file.mimetype }, fields).then(
        () => callback(null, {}),
        (error: unknown) => {
          entry.fileFailure ??= error;
          // multer would read the rest of the body before reporting this; answer now instead.
          if (error instanceof AppError && error.code === 'DOCUMENT_TOO_LARGE') entry.refuse(error);
          callback(error as Error);
        },
      );
    },
    _removeFile(req, _file, callback) {
      const entry = pending.get(req);
      if (!entry) return callback(null);
      entry.upload.discard().then(() => callback(null), callback);
    },
  };

  const parseForm = koaMulter({
    storage: engine,
    // Only the `file` part is the document; other file parts are skipped, as unknown fields are.
    fileFilter: (_req, file, accept) => accept(null, file.fieldname === 'file'),
    // multer counts `fileSize` with busboy, and the domain again for the CLI; both refuse at limit + 1.
    limits: { ...FORM_LIMITS, fileSize: storage.limitBytes },
    // The domain reduces the name itself, the same way for the CLI; busboy's own reduction would
    // turn a name like `..` into "no file at all".
    preservePath: true,
    // Browsers and curl send file names as raw UTF-8; busboy would read them as Latin-1.
    defParamCharset: 'utf8',
    // Counts the whole body before busboy sees it, so that junk around the document (huge skipped
    // parts, a long epilogue) is bounded too.
    streamHandler(req: IncomingMessage, busboy: Writable) {
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBodyBytes) pending.get(req)?.refuse(errors.documentTooLarge(storage.limitBytes));
      });
      req.pipe(busboy);
    },
  } as koaMulter.Options).any();

  return async function receiveDocumentUploadMiddleware(ctx: RouterContext<ClinicState>, next: Next): Promise<void> {
    // The declared type decides (ctx.is() would call a body-less multipart request "not multipart").
    if (ctx.request.type.trim().toLowerCase() !== 'multipart/form-data') throw errors.unsupportedMediaType('multipart/form-data');
    if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) {
      closeConnectionAfterResponse(ctx);
      throw errors.documentTooLarge(storage.limitBytes);
    }
    // authorize ran first: the caller is the key's.
    const upload = new DocumentUpload(db, commits, storage, ctx.params.patient_id, apiCaller(ctx).actor!, ctx.headers);
    let refuse: (error: AppError) => void = () => undefined;
    const refused = new Promise<never>((_resolve, reject) => (refuse = reject));
    const entry: PendingUpload = { upload, fileStreams: [], refuse };
    pending.set(ctx.req, entry);
    try {
      // multer settles only after the body is read to its end; a 413 does not wait for that.
      await Promise.race([parseForm(ctx, async () => undefined), refused]);
    } catch (thrown) {
      // A file still arriving when the form is refused (413 while skipping junk) would keep the
      // domain waiting for bytes that no longer come: end it. Then wait until the domain has let
      // go of every file, so that nothing is left behind and its failure (a full disk) is known.
      for (const stream of entry.fileStreams) stream.destroy();
      await upload.discard();
      // A 413 of the whole body outranks what ending the file made the domain say.
      const refusedEarly = thrown instanceof AppError && thrown.status === 413;
      let error = formError(refusedEarly ? thrown : (entry.fileFailure ?? thrown), ctx.req);
      // LIMIT_FILE_SIZE, which the domain reports too; this is only in case it did not.
      if (error instanceof multer.MulterError) error = errors.documentTooLarge(storage.limitBytes);
      // A 413 is answered before the body was read to its end: the unread rest cannot be left for
      // a next request on this connection.
      if (error instanceof AppError && error.status === 413) closeConnectionAfterResponse(ctx);
      throw upload.withPathIssues(error);
    }
    ctx.state.upload = upload;
    // @koa/multer moves the text fields from req.body to ctx.request.body.
    ctx.state.form = { ...(ctx.request as { body?: object }).body };
    await next();
  };
}
