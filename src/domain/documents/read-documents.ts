import type { FileHandle } from 'node:fs/promises';
import { openDocumentFile } from '../../db/document-files.js';
import { BEFORE_NEWEST_DOCUMENT, findDocument, listPatientDocumentRows, type DocumentRow } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';
import { patientExists } from '../../db/patients.js';
import { presentColumns } from '../../fields/columns.js';
import { DOCUMENT_DOWNLOAD_PATH_FIELDS, DOCUMENT_ITEM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { errors } from '../errors.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import { fieldsValidator, throwIfIssues } from '../validation/validate.js';

/** DocumentItem (clinic-api-1.1.md). */
export type DocumentItem = ResponseOf<typeof DOCUMENT_ITEM_FIELDS>;

/** The query of GET /patients/{patient_id}/documents. */
export const DOCUMENT_LIST_QUERY_FIELDS = pageQueryFields(`${DEFAULT_PAGE_LIMIT}`);

const listPath = fieldsValidator(DOCUMENT_PATH_FIELDS, 'path');
const listQuery = fieldsValidator(DOCUMENT_LIST_QUERY_FIELDS, 'query');
const downloadPath = fieldsValidator(DOCUMENT_DOWNLOAD_PATH_FIELDS, 'path');
const CURSOR = 'documents';
const CURSOR_SHAPE = ['string', 'number'] as const;
const UTC = { timeZone: 'UTC' };

/** The API shape of a stored document as listed. */
export function presentDocumentItem(row: DocumentRow): DocumentItem {
  return presentColumns<DocumentItem>(DOCUMENT_ITEM_FIELDS, row);
}

function cursorPosition(cursor: string) {
  const [created_at, seq] = decodeCursor(cursor, CURSOR, CURSOR_SHAPE) as [string, number];
  return { created_at, seq };
}

/** A patient's documents, newest first, one page at a time; 404 PATIENT_NOT_FOUND. */
export function listPatientDocuments(db: Db, patientId: unknown, query: unknown): Page<DocumentItem> {
  // Path and query are reported together (decisions.md §1).
  throwIfIssues(listPath.issues({ patient_id: patientId }), listQuery.issues(query), cursorIssues(query, CURSOR, CURSOR_SHAPE));
  const id = listPath.normalize({ patient_id: patientId }, UTC).patient_id;
  const values = listQuery.normalize(query, UTC);
  if (!patientExists(db, id)) throw errors.patientNotFound();
  const limit = values.limit ?? DEFAULT_PAGE_LIMIT;
  const after = values.after === undefined ? BEFORE_NEWEST_DOCUMENT : cursorPosition(values.after);
  return pageOf(listPatientDocumentRows(db, id, after, limit + 1), limit, CURSOR, (row) => [row.created_at, row.seq], presentDocumentItem);
}

/** A document ready to be sent: its metadata and its bytes, opened. The caller closes `file`. */
export interface OpenedDocument {
  document: DocumentRow;
  file: FileHandle;
}

/**
 * Opens a stored document of a patient for download: 404 PATIENT_NOT_FOUND for an unknown
 * patient, 404 DOCUMENT_NOT_FOUND for an unknown document or one of another patient. A missing
 * or unreadable file is a storage fault (500 STORAGE_FAILED, logged), which `clinic check` names.
 */
export async function openDocument(db: Db, dataDir: string, patientId: unknown, documentId: unknown): Promise<OpenedDocument> {
  const ids = downloadPath.parse({ patient_id: patientId, document_id: documentId }, UTC);
  if (!patientExists(db, ids.patient_id)) throw errors.patientNotFound();
  const document = findDocument(db, ids.document_id);
  if (!document || document.patient_id !== ids.patient_id) throw errors.documentNotFound();
  return { document, file: await openDocumentFile(dataDir, document.patient_id, document.id) };
}
