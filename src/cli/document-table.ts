import type { DocumentItem } from '../domain/documents/read-documents.js';
import { deskTable, fileSize, localShortDate } from './desk-format.js';

/**
 * A patient's documents for people (`patient show`, `document list`), each with its number
 * (D-000017), which `clinic document save` takes (interface 1.3.0; the id is in `--json`). A long
 * type shrinks last, after title and file name, so that a row fits 100 columns.
 */
export function documentTable(documents: readonly DocumentItem[], timeZone: string): string {
  return deskTable(
    [
      { header: 'Number' },
      { header: 'Date' },
      { header: 'Type', shrink: true },
      { header: 'Title', shrink: true },
      { header: 'File', shrink: true },
      { header: 'Size', align: 'right' },
    ],
    documents.map((document) => [
      document.document_number,
      localShortDate(document.created_at, timeZone),
      document.type,
      document.title ?? '',
      document.filename,
      fileSize(document.size),
    ]),
  );
}
