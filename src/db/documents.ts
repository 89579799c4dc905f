import { preparedFor, type Db } from './open-database.js';

/** A document's metadata as the upload stores it; its number is the database's to give. */
export interface NewDocumentRow {
  id: string;
  patient_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  title: string | null;
  type: string;
  created_at: string;
}

/** A `documents` row: the metadata of one stored file, with the number on paper its `seq` gives it (D-000017). */
export interface DocumentRow extends NewDocumentRow {
  document_number: string;
}

/** A document as listed, with its place in the order (the rowid). */
export interface ListedDocumentRow extends DocumentRow {
  seq: number;
}

/** Where a page starts: strictly after this (created_at, rowid), newest first. */
export interface DocumentCursor {
  created_at: string;
  seq: number;
}

/** After every document in newest-first order. */
export const BEFORE_NEWEST_DOCUMENT: DocumentCursor = { created_at: '\u{10FFFF}', seq: Number.MAX_SAFE_INTEGER };

const INSERTED_COLUMNS = 'id, patient_id, filename, content_type, size, sha256, title, type, created_at';
const COLUMNS = `${INSERTED_COLUMNS}, document_number`;

// Newest first: the patient index read backwards, the rowid breaking ties.
const BY_PATIENT_SQL = `SELECT rowid AS seq, ${COLUMNS} FROM documents
  WHERE patient_id = @patient_id AND (created_at, rowid) < (@after_created_at, @after_seq)
  ORDER BY created_at DESC, rowid DESC LIMIT @limit`;

const statements = preparedFor((db) => ({
  insert: db.prepare<NewDocumentRow>(
    `INSERT INTO documents (${INSERTED_COLUMNS}) VALUES (@id, @patient_id, @filename, @content_type, @size, @sha256, @title, @type, @created_at)`,
  ),
  remove: db.prepare<[string]>('DELETE FROM documents WHERE id = ?'),
  byId: db.prepare<[string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE id = ?`),
  byPatient: db.prepare<{ patient_id: string; after_created_at: string; after_seq: number; limit: number }, ListedDocumentRow>(
    BY_PATIENT_SQL,
  ),
}));

/** Stores a document's metadata; returns it as stored, with the number it was given. */
export function insertDocument(db: Db, row: NewDocumentRow): DocumentRow {
  const { insert, byId } = statements(db);
  insert.run(row);
  return byId.get(row.id)!;
}

/** Removes a document's metadata: only to undo an insert whose file could not be put in place. */
export function deleteDocument(db: Db, id: string): void {
  statements(db).remove.run(id);
}

/** The document with this id, or undefined. */
export function findDocument(db: Db, id: string): DocumentRow | undefined {
  return statements(db).byId.get(id);
}

/** Up to `limit` of a patient's documents after `after`, newest first. */
export function listPatientDocumentRows(db: Db, patientId: string, after: DocumentCursor, limit: number): ListedDocumentRow[] {
  return statements(db).byPatient.all({ patient_id: patientId, after_created_at: after.created_at, after_seq: after.seq, limit });
}

/** SQLite's plan for listPatientDocumentRows, one line per step (tests prove it reads the patient's index backwards). */
export function explainPatientDocumentList(db: Db): string[] {
  return db
    .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${BY_PATIENT_SQL}`)
    .all({ patient_id: 'p', after_created_at: BEFORE_NEWEST_DOCUMENT.created_at, after_seq: BEFORE_NEWEST_DOCUMENT.seq, limit: 1 })
    .map((step) => step.detail);
}
