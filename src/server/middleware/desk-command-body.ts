import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import koaMulter from '@koa/multer';
import type { Next } from 'koa';
import multer from 'multer';
import { createTempFile, removeFile, writeChunk } from '../../db/document-files.js';
import { newId } from '../../domain/clock.js';
import { isDeskCommandFileOption, type DeskCommandFile } from '../../domain/desk/desk-command-files.js';
import { documentFilename } from '../../domain/documents/document-filename.js';
import { problems } from '../../domain/validation/problems.js';
import { parseJsonBody } from '../../domain/validation/json-body-text.js';
import { issue } from '../../domain/validation/validate.js';
import { AppError, errors, ValidationError } from '../../errors.js';
import type { ClinicContext } from '../api/state.js';
import type { ServerConfig } from '../config.js';
import { closeConnectionAfterResponse } from '../connections/close-connection.js';
import { jsonBody } from './json-body.js';

/** At most this many files with one command (each option once), and a form of these few parts. */
const FORM_LIMITS = { fieldNameSize: 100, fields: 1, files: 2, parts: 3, headerPairs: 16 } as const;

/** Room for the form's boundaries and part headers besides the command and its files. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const malformed = (reason: string) => new ValidationError([issue(['body'], problems.valueError(reason), null)]);

/**
 * The body of POST /desk/commands: JSON `{"argv": […]}`, or (interface 1.3.0, "Commands on a desk
 * PC") a multipart/form-data form whose part `command` holds that JSON and whose file parts, named
 * by their option (`file`, `token-file`), hold the files of the desk PC the command reads. Each
 * file is streamed to a temporary file of the data directory (tmp/<id>.<pid>.part, which a crash
 * leaves for the next start to remove), hashed as it arrives, and never held in memory; it may be
 * as large as a document (the command applies its own limit again). The JSON goes to
 * `ctx.state.body`, the files to `ctx.state.deskFiles`, removed by the caller once the command
 * ends; a refused form removes them at once. 413 past the limits, 422 for a malformed form, a
 * `command` part that is no JSON, or a file part of another name.
 */
export function receiveDeskCommand(config: ServerConfig) {
  const json = jsonBody(config.jsonBodyLimitBytes);
  const fileLimit = config.documentLimitBytes;
  const maxBodyBytes = fileLimit * FORM_LIMITS.files + config.jsonBodyLimitBytes + FORM_OVERHEAD_BYTES;
  const received = new WeakMap<IncomingMessage, DeskCommandFile[]>();

  const engine: multer.StorageEngine = {
    _handleFile(req, file, callback) {
      const files = received.get(req)!;
      if (!isDeskCommandFileOption(file.fieldname) || files.some((sent) => sent.option === file.fieldname)) {
        file.stream.resume();
        callback(malformed(`a file part must be named by its option (file, token-file), each once; got ${JSON.stringify(file.fieldname)}`));
        return;
      }
      storeFile(file.stream, config.dataDir, fileLimit).then(
        ({ path, sha256 }) => {
          files.push({ option: file.fieldname as DeskCommandFile['option'], path, name: documentFilename(file.originalname), sha256 });
          callback(null, {});
        },
        (error: unknown) => callback(error as Error),
      );
    },
    _removeFile(_req, _file, callback) {
      callback(null);
    },
  };
  const parseForm = koaMulter({
    storage: engine,
    limits: { ...FORM_LIMITS, fieldSize: config.jsonBodyLimitBytes, fileSize: fileLimit },
    preservePath: true,
    defParamCharset: 'utf8',
  } as koaMulter.Options).any();

  return async function receiveDeskCommandMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    if (ctx.request.type.trim().toLowerCase() !== 'multipart/form-data') return json(ctx, next);
    if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) {
      closeConnectionAfterResponse(ctx);
      throw errors.payloadTooLarge(maxBodyBytes);
    }
    const files: DeskCommandFile[] = [];
    received.set(ctx.req, files);
    try {
      await parseForm(ctx as never, async () => undefined);
      const fields = { ...(ctx.request as { body?: Record<string, unknown> }).body };
      if (typeof fields.command !== 'string') throw malformed('the form needs a part `command` holding the command as JSON');
      ctx.state.body = parseJsonBody(Buffer.from(fields.command));
    } catch (error) {
      await Promise.all(files.map((file) => removeFile(file.path)));
      throw formRefusal(error, fileLimit, config.jsonBodyLimitBytes, ctx);
    }
    ctx.state.deskFiles = files;
    await next();
  };
}

/** Streams one file part to a new temporary file: its path and SHA-256; removed again when it fails or passes `limitBytes`. */
async function storeFile(
  stream: AsyncIterable<Uint8Array>,
  dataDir: string,
  limitBytes: number,
): Promise<{ path: string; sha256: string }> {
  const temp = await createTempFile(dataDir, newId());
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > limitBytes) throw errors.documentTooLarge(limitBytes);
      hash.update(chunk);
      await writeChunk(temp.handle, chunk);
    }
    await temp.handle.close();
  } catch (error) {
    await temp.handle.close().catch(() => undefined);
    await removeFile(temp.path);
    throw error;
  }
  return { path: temp.path, sha256: hash.digest('hex') };
}

/** What a form that could not be read becomes: the client's doing is a 413 or 422; a disk's failure or a bug passes. */
function formRefusal(thrown: unknown, fileLimit: number, jsonLimit: number, ctx: ClinicContext): unknown {
  if (thrown instanceof AppError && thrown.status === 413) closeConnectionAfterResponse(ctx);
  if (thrown instanceof AppError || thrown instanceof ValidationError) return thrown;
  if (thrown instanceof multer.MulterError) {
    if (thrown.code === 'LIMIT_FILE_SIZE') {
      closeConnectionAfterResponse(ctx);
      return errors.documentTooLarge(fileLimit);
    }
    if (thrown.code === 'LIMIT_FIELD_VALUE') return errors.payloadTooLarge(jsonLimit);
    return malformed('the form has other parts than `command` and at most one file per option');
  }
  if (typeof (thrown as NodeJS.ErrnoException | undefined)?.syscall === 'string') return thrown;
  if (thrown instanceof Error && !(thrown instanceof TypeError || thrown instanceof RangeError)) {
    return malformed('the multipart/form-data body is malformed or ended early');
  }
  return thrown;
}
