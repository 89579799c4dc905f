import { restrictionOf } from '../retention/restriction.js';
import { createHash } from 'node:crypto';
import { createTempFile, moveIntoPlace, persistTempFile, removeFile, writeChunk, type TempFile } from '../../db/document-files.js';
import { deleteDocument, insertDocument, type DocumentRow, type NewDocumentRow } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';
import { removeIdempotentAnswer } from '../../db/idempotent-answers.js';
import { patientExists } from '../../db/patients.js';
import { presentColumns } from '../../fields/columns.js';
import { canonicalId } from '../../fields/human-numbers.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { DOCUMENT_FIELDS, DOCUMENT_FORM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import { DOCUMENT_TYPE_KEYS } from '../../fields/document-fields.js';
import { newId, nowIso } from '../clock.js';
import { type AppError, errors, ValidationError, type ValidationIssue } from '../../errors.js';
import { problems } from '../validation/problems.js';
import { fieldsValidator, issue, throwIfIssues } from '../validation/validate.js';
import { documentFilename } from './document-filename.js';
import { documentMediaType, MEDIA_TYPE_RULE, OCTET_STREAM } from './media-type.js';
import { connectionRunner, type WorkRunner } from '../use-case.js';
import type { Actor } from '../audit/audit-event.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { appendChangeEvents } from '../changes/record-changes.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { answerOnce, requestFingerprint, wasReplayed, type IdempotentOperation } from '../idempotent-answers.js';

/** Where documents are kept and how large one may be. */
export interface DocumentStorage {
  /** The data directory; uploads go to its tmp/ and documents/ folders. */
  dataDir: string;
  /** Largest document accepted, in bytes (decisions.md §1: 25 MiB unless configured). */
  limitBytes: number;
}

/** The Document upload response of spec 2.11. */
export type Document = ResponseOf<typeof DOCUMENT_FIELDS>;

/** A file as it arrives: its bytes, read once, and what its sender said about it. */
export interface IncomingFile {
  stream: AsyncIterable<Uint8Array>;
  /** The name on the sender's side, untrusted; see documentFilename. */
  filename: string | undefined;
  /** The media type the sender declared, if any; see documentMediaType. */
  contentType: string | undefined;
}

/** A file read to its end. */
interface ReceivedFile {
  /** The fsynced temporary copy, or undefined when the upload was already refused and the bytes were only counted. */
  tempPath: string | undefined;
  /** The id the document will have: chosen before its bytes are written, as the temporary file is named after it. */
  documentId: string;
  size: number;
  sha256: string;
  filename: string | undefined;
  contentType: string | undefined;
}

type DocumentTypeKey = (typeof DOCUMENT_TYPE_KEYS)[number];

const pathInput = fieldsValidator(DOCUMENT_PATH_FIELDS, 'path');
const formInput = fieldsValidator(DOCUMENT_FORM_FIELDS, 'body');
const headerInput = fieldsValidator(IDEMPOTENCY_HEADER_FIELDS, 'header');

/**
 * POST /patients/{patient_id}/documents answers once per Idempotency-Key (clinic-api-1.3.md): the
 * same request is the same patient, form fields and file (its SHA-256, name and declared type).
 */
const UPLOAD_DOCUMENT_OPERATION: IdempotentOperation = { operation: 'uploadDocument', status: 201, what: 'document' };
const NO_TIME_FIELDS = { timeZone: 'UTC' };

const isDocumentType = (value: unknown): value is DocumentTypeKey => (DOCUMENT_TYPE_KEYS as readonly unknown[]).includes(value);

/**
 * The form's text fields without the empty ones: a form sends its empty inputs as "", which
 * means "not given" (decisions.md §6 for `type`; the same for `title`, docs/design-choices.md).
 */
function givenFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const { name } of DOCUMENT_FORM_FIELDS) {
    const value = fields[name];
    if (value !== undefined && value !== '') given[name] = value;
  }
  return given;
}

/**
 * Reads `source` to its end, counting bytes and, when `sink` is given, hashing and writing them.
 * Stops at the first byte over the limit, so an over-large upload is never read further.
 */
async function readStream(source: AsyncIterable<Uint8Array>, limitBytes: number, sink: TempFile | undefined) {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > limitBytes) throw errors.documentTooLarge(limitBytes);
    if (sink) {
      hash.update(chunk);
      await writeChunk(sink.handle, chunk);
    }
  }
  return { size, sha256: hash.digest('hex') };
}

/** The API shape of a stored document (spec 2.11). */
function presentDocument(row: DocumentRow): Document {
  return presentColumns<Document>(DOCUMENT_FIELDS, row);
}

/**
 * One document upload, in the order its parts can arrive: the patient id is known first (from
 * the path), the form fields and the file in whatever order the client sends them, so each check
 * runs as soon as its input is there (decisions.md §1, §6):
 *
 * 1. `receiveFile` reads the bytes to their end, refusing at the first byte over the limit (413).
 *    They are written to a temporary file only if nothing seen so far already refuses the upload
 *    (malformed or unknown patient, bad `type`, a declared type that is no media type); otherwise
 *    they are only counted, so that the answer does not depend on the order of the form fields.
 * 2. `complete` checks the whole form (path and body issues in one 422, then 404 for an unknown
 *    patient, then DOCUMENT_TYPE_INVALID, then DOCUMENT_EMPTY), commits the row, and only then
 *    renames the file into documents/<patient_id>/<document_id>.
 *
 * Every refusal or failure removes what was written: no row, no file, no temporary file.
 */
export class DocumentUpload {
  private readonly pathIssues: ValidationIssue[];
  private readonly headerIssues: ValidationIssue[];
  /** The request's Idempotency-Key once valid, or null. */
  private readonly idempotencyKey: string | null;
  /** The lower-case id of an existing patient, or undefined when the path names none. */
  private readonly patientId: string | undefined;
  /** An erased patient's documents are kept as they are (1.3.0, "Restriction"): none is added, by anyone. */
  private readonly restricted: AppError | undefined;
  private received: ReceivedFile | undefined;
  private files = 0;
  /** The issue with the file's declared media type, if it is not one that can be served back. */
  private contentTypeIssues: ValidationIssue[] = [];
  /** Settles when every file being received has been kept or removed; `discard` waits for it. */
  private inFlight: Promise<unknown> = Promise.resolve();
  private discarded = false;

  constructor(
    private readonly db: Db,
    /** How the document's row is committed: at once on the command line, with its group on the server. */
    private readonly runner: WorkRunner,
    private readonly storage: DocumentStorage,
    patientIdInput: unknown,
    /** Who uploads, as the audit trail names them (document.create). */
    private readonly actor: Actor,
    /** The request's headers the upload reads (`idempotency-key`), as they arrived. */
    headers: Readonly<Record<string, unknown>> = {},
  ) {
    this.pathIssues = pathInput.issues({ patient_id: patientIdInput });
    const header = { 'idempotency-key': headers['idempotency-key'] };
    this.headerIssues = headerInput.issues(header);
    this.idempotencyKey =
      this.headerIssues.length === 0 ? (headerInput.normalize(header, NO_TIME_FIELDS)['idempotency-key'] ?? null) : null;
    const id = this.pathIssues.length === 0 ? canonicalId(patientIdInput as string) : undefined;
    this.patientId = id !== undefined && patientExists(db, id) ? id : undefined;
    this.restricted =
      this.patientId === undefined ? undefined : restrictionOf(db, { path: { patient_id: this.patientId } }, actor, 'write');
  }

  /** Whether what is known so far allows the upload, so that its bytes are worth keeping. */
  private mayStore(fieldsSoFar: Readonly<Record<string, unknown>>): boolean {
    if (this.patientId === undefined || this.restricted !== undefined) return false;
    const given = givenFields(fieldsSoFar);
    return formInput.issues(given).length === 0 && (given.type === undefined || isDocumentType(given.type));
  }

  /**
   * Reads the file to its end (see the class comment). Rejects with DOCUMENT_TOO_LARGE at the
   * first byte over the limit, and a second file with a 422; what was written is removed first.
   */
  receiveFile(file: IncomingFile, fieldsSoFar: Readonly<Record<string, unknown>>): Promise<void> {
    const receiving = this.receive(file, fieldsSoFar);
    this.inFlight = Promise.all([this.inFlight, receiving.catch(() => undefined)]);
    return receiving;
  }

  private async receive(file: IncomingFile, fieldsSoFar: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.discarded) throw new Error('the upload was abandoned');
    if (this.files++ > 0) {
      throw new ValidationError([issue(['body', 'file'], problems.valueError('send exactly one file'), file.filename ?? null)]);
    }
    const contentType = file.contentType === undefined ? OCTET_STREAM : documentMediaType(file.contentType);
    if (contentType === undefined) {
      this.contentTypeIssues = [
        issue(['body', 'file'], problems.valueError(`the file's Content-Type must be ${MEDIA_TYPE_RULE}`), file.contentType ?? null),
      ];
    }
    const documentId = newId();
    const keep = contentType !== undefined && this.mayStore(fieldsSoFar);
    const temp = keep ? await createTempFile(this.storage.dataDir, documentId) : undefined;
    try {
      const { size, sha256 } = await readStream(file.stream, this.storage.limitBytes, temp);
      if (temp) await persistTempFile(this.storage.dataDir, temp);
      this.received = { tempPath: temp?.path, documentId, size, sha256, filename: file.filename, contentType };
    } catch (error) {
      if (temp) {
        await temp.handle.close().catch(() => undefined);
        await removeFile(temp.path);
      }
      throw error;
    }
  }

  /**
   * A 422 about the form (malformed, a second file) with the path's issues in front, since
   * decisions.md §1 reports every failing field at once; any other error as it is.
   */
  withPathIssues(error: unknown): unknown {
    return error instanceof ValidationError && this.pathIssues.length > 0
      ? new ValidationError([...this.pathIssues, ...error.issues])
      : error;
  }

  /** The issue for a form without a usable `file` part, or none. */
  private fileIssues(fields: Readonly<Record<string, unknown>>): ValidationIssue[] {
    if (this.received) return this.contentTypeIssues;
    // A `file` part without a filename arrives as a text field: name what is wrong with it.
    if (fields.file !== undefined) {
      return [issue(['body', 'file'], problems.valueError('expected a file: send `file` as a form part with a filename'), fields.file)];
    }
    return [issue(['body', 'file'], problems.missing(), null)];
  }

  /**
   * Finishes the upload once the whole form has been read: checks everything, stores the row
   * and puts the file in place. Any refusal or failure discards what was written.
   */
  async complete(fields: Readonly<Record<string, unknown>>): Promise<Document> {
    try {
      return await this.commit(fields);
    } catch (error) {
      await this.discard();
      throw error;
    }
  }

  private async commit(fields: Readonly<Record<string, unknown>>): Promise<Document> {
    const given = givenFields(fields);
    throwIfIssues(this.pathIssues, this.headerIssues, formInput.issues(given), this.fileIssues(fields));
    if (this.patientId === undefined) throw errors.patientNotFound(404);
    if (this.restricted !== undefined) throw this.restricted;
    const values = formInput.normalize(given, NO_TIME_FIELDS);
    if (!isDocumentType(values.type)) throw errors.documentTypeInvalid(DOCUMENT_TYPE_KEYS);
    const file = this.received as ReceivedFile;
    if (file.size === 0) throw errors.documentEmpty();
    if (file.tempPath === undefined) throw new Error('an upload that passed every check was not kept');

    const row: NewDocumentRow = {
      id: file.documentId,
      patient_id: this.patientId,
      filename: documentFilename(file.filename),
      content_type: file.contentType ?? OCTET_STREAM,
      size: file.size,
      sha256: file.sha256,
      title: values.title,
      type: values.type,
      created_at: nowIso(),
    };
    // The row, its change event and its audit event in one transaction (clinic-api-1.2.md).
    // Should the move below fail, the row is removed but the events stay: the trail keeps that the
    // upload was made, and a reader of the feed finds the document gone (404), as after any removal.
    // With an Idempotency-Key, the same upload again is answered with the first document, and its
    // bytes, received a second time, are dropped.
    const fingerprint = requestFingerprint(
      UPLOAD_DOCUMENT_OPERATION.operation,
      { patient_id: row.patient_id },
      { type: row.type, title: row.title, filename: row.filename, content_type: row.content_type, sha256: row.sha256 },
    );
    const answered = await this.runner.run('read-then-write', () =>
      answerOnce(this.db, UPLOAD_DOCUMENT_OPERATION, this.idempotencyKey, fingerprint, () => {
        const inserted = insertDocument(this.db, row);
        appendChangeEvents(this.db, [
          { type: 'document.created', patientId: row.patient_id, data: { document_id: row.id, type: row.type, size: row.size } },
        ]);
        appendAuditEvents(this.db, this.actor, [{ action: 'document.create', patientId: row.patient_id, subjectId: row.id }]);
        return presentDocument(inserted);
      }),
    );
    if (wasReplayed(answered)) {
      await this.discard();
      return answered;
    }
    // A crash from here until the rename is done leaves the row and its file in tmp/: the next
    // `clinic serve` finishes the move (recover-uploads.ts).
    try {
      await moveIntoPlace(this.storage.dataDir, file.tempPath, row.patient_id, row.id);
    } catch (error) {
      // Committed first so that a file in documents/ always has its row; a row whose file
      // never arrived must not remain either.
      // Its key goes with it: the upload sent again is stored anew, not answered with a document that is gone.
      const key = this.idempotencyKey;
      await this.runner.run('write', () => {
        deleteDocument(this.db, row.id);
        if (key !== null) removeIdempotentAnswer(this.db, key);
      });
      throw error;
    }
    this.received = undefined;
    return answered;
  }

  /**
   * Abandons the upload: waits for a file still being received (the caller ends its stream) and
   * removes the temporary file, if one was kept. Safe to call more than once.
   */
  async discard(): Promise<void> {
    this.discarded = true;
    // A file still arriving (its stream failed, but its temporary file is not yet removed, or its
    // reader has not yet seen the failure) is waited for, so that nothing is left once this settles.
    await this.inFlight;
    const tempPath = this.received?.tempPath;
    this.received = undefined;
    if (tempPath !== undefined) await removeFile(tempPath);
  }
}

/**
 * Uploads a document whose form is known up front (`clinic upload-document`): the same steps
 * and checks as POST /patients/{patient_id}/documents.
 */
export async function uploadDocument(
  db: Db,
  storage: DocumentStorage,
  input: { patientId: unknown; fields: Readonly<Record<string, unknown>>; file: IncomingFile },
  actor: Actor,
  /** The request's headers: `idempotency-key` (`--idempotency-key`). */
  headers: Readonly<Record<string, unknown>> = {},
): Promise<Document> {
  const upload = new DocumentUpload(db, connectionRunner(db), storage, input.patientId, actor, headers);
  await upload.receiveFile(input.file, input.fields);
  return upload.complete(input.fields);
}
