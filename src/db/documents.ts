import { preparedFor, type Db } from './open-database.js';

/** A `documents` row: the metadata of one stored file. */
export interface DocumentRow {
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

const COLUMNS = 'id, patient_id, filename, content_type, size, sha256, title, type, created_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<DocumentRow>(
    `INSERT INTO documents (${COLUMNS}) VALUES (@id, @patient_id, @filename, @content_type, @size, @sha256, @title, @type, @created_at)`,
  ),
  remove: db.prepare<[string]>('DELETE FROM documents WHERE id = ?'),
  byId: db.prepare<[string], DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE id = ?`),
}));

/** Stores a document's metadata. */
export function insertDocument(db: Db, row: DocumentRow): void {
  statements(db).insert.run(row);
}

/** Removes a document's metadata: only to undo an insert whose file could not be put in place. */
export function deleteDocument(db: Db, id: string): void {
  statements(db).remove.run(id);
}

/** The document with this id, or undefined. */
export function findDocument(db: Db, id: string): DocumentRow | undefined {
  return statements(db).byId.get(id);
}
