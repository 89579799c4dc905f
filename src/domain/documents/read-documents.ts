import type { FileHandle } from 'node:fs/promises';
import { openDocumentFile } from '../../db/document-files.js';
import { BEFORE_NEWEST_DOCUMENT, findDocument, listPatientDocumentRows, type DocumentRow } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';
import { patientExists } from '../../db/patients.js';
import { presentColumns } from '../../fields/columns.js';
import { DOCUMENT_DOWNLOAD_PATH_FIELDS, DOCUMENT_ITEM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { errors } from '../../errors.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';

/** DocumentItem (clinic-api-1.1.md). */
export type DocumentItem = ResponseOf<typeof DOCUMENT_ITEM_FIELDS>;

/** The query of GET /patients/{patient_id}/documents. */
export const DOCUMENT_LIST_QUERY_FIELDS = pageQueryFields(`${DEFAULT_PAGE_LIMIT}`);

const CURSOR = 'documents';
const CURSOR_SHAPE = ['string', 'number'] as const;

/** The API shape of a stored document as listed. */
export function presentDocumentItem(row: DocumentRow): DocumentItem {
  return presentColumns<DocumentItem>(DOCUMENT_ITEM_FIELDS, row);
}

function cursorPosition(cursor: string) {
  const [created_at, seq] = decodeCursor(cursor, CURSOR, CURSOR_SHAPE) as [string, number];
  return { created_at, seq };
}

/** A patient's documents, newest first, one page at a time; 404 PATIENT_NOT_FOUND. */
export const LIST_DOCUMENTS = defineUseCase({
  roles: ROLE_ROWS.listDocuments,
  summary: "List a patient's documents",
  input: { path: DOCUMENT_PATH_FIELDS, query: DOCUMENT_LIST_QUERY_FIELDS },
  refusals: [errors.patientNotFound(404)],
  access: 'read',
  moreIssues: ({ query }) => cursorIssues(query, CURSOR, CURSOR_SHAPE),
  run(db, { path, query }): Page<DocumentItem> {
    if (!patientExists(db, path.patient_id)) throw errors.patientNotFound();
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
    const after = query.after === undefined ? BEFORE_NEWEST_DOCUMENT : cursorPosition(query.after);
    const rows = listPatientDocumentRows(db, path.patient_id, after, limit + 1);
    return pageOf(rows, limit, CURSOR, (row) => [row.created_at, row.seq], presentDocumentItem);
  },
  audit: (_page, { path }) => documentListRecords(path.patient_id),
});

/** What listing a patient's documents records: one document.list, however many pages (`clinic document list` too). */
export function documentListRecords(patientId: string): AuditRecord[] {
  return [{ action: 'document.list', patientId, subjectId: null }];
}

/** LIST_DOCUMENTS on a connection of its own. */
export function listPatientDocuments(db: Db, patientId: unknown, query: unknown): Page<DocumentItem> {
  return performUseCase(LIST_DOCUMENTS, db, { path: { patient_id: patientId }, query }, { source: 'cli', actor: null });
}

/** A document ready to be sent: its metadata and its bytes, opened. The caller closes `file`. */
export interface OpenedDocument {
  document: DocumentRow;
  file: FileHandle;
}

/**
 * A stored document of a patient, to be downloaded: 404 PATIENT_NOT_FOUND for an unknown patient,
 * 404 DOCUMENT_NOT_FOUND for an unknown document or one of another patient. Its document.read is
 * recorded when the bytes are delivered, not when it is found: a 304 shows nothing.
 */
export const FIND_DOCUMENT = defineUseCase({
  roles: ROLE_ROWS.documents,
  summary: 'Download a stored document',
  input: { path: DOCUMENT_DOWNLOAD_PATH_FIELDS },
  refusals: [errors.patientNotFound(404), errors.documentNotFound()],
  access: 'read',
  run(db, { path }): DocumentRow {
    if (!patientExists(db, path.patient_id)) throw errors.patientNotFound();
    const document = findDocument(db, path.document_id);
    if (!document || document.patient_id !== path.patient_id) throw errors.documentNotFound();
    return document;
  },
  audit: (document) => documentReadRecords(document),
  recorded: 'delivery',
});

/** What reading a document's bytes records: one document.read. */
function documentReadRecords(document: DocumentRow): AuditRecord[] {
  return [{ action: 'document.read', patientId: document.patient_id, subjectId: document.id }];
}

/** The path of a document named by its id alone. */
const DOCUMENT_ID_FIELDS = [DOCUMENT_DOWNLOAD_PATH_FIELDS[1]] as const;

/**
 * A stored document by its id alone, as the desk names it (`clinic document save D-17`, the desk
 * resolving the number to the id): a document's id and number are unique over all patients.
 * 404 DOCUMENT_NOT_FOUND.
 */
export const READ_DOCUMENT = defineUseCase({
  roles: ROLE_ROWS.documents,
  summary: 'Read a stored document by its id',
  input: { path: DOCUMENT_ID_FIELDS },
  refusals: [errors.documentNotFound('No document has this id.')],
  access: 'read',
  run(db, { path }): DocumentRow {
    const document = findDocument(db, path.document_id);
    if (!document) throw errors.documentNotFound('No document has this id.');
    return document;
  },
  audit: (document) => documentReadRecords(document),
});

/**
 * Opens the bytes of a document FIND_DOCUMENT found. A missing or unreadable file is a storage
 * fault (500 STORAGE_FAILED, logged), which `clinic check` names.
 */
export async function openDocument(dataDir: string, document: DocumentRow): Promise<OpenedDocument> {
  return { document, file: await openDocumentFile(dataDir, document.patient_id, document.id) };
}
