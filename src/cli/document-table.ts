import type { DocumentItem } from '../domain/documents/read-documents.js';
import { deskTable, fileSize, localShortDate } from './desk-format.js';

/**
 * A patient's documents for people (`patient show`, `document list`), each with its whole id,
 * which `clinic document save` and the API's download take. For the id the time of day gives way
 * and a long type shrinks last, after title and file name, so that a row fits 100 columns.
 */
export function documentTable(documents: readonly DocumentItem[], timeZone: string): string {
  return deskTable(
    [
      { header: 'Date' },
      { header: 'Type', shrink: true },
      { header: 'Title', shrink: true },
      { header: 'File', shrink: true },
      { header: 'Size', align: 'right' },
      { header: 'Id' },
    ],
    documents.map((document) => [
      localShortDate(document.created_at, timeZone),
      document.type,
      document.title ?? '',
      document.filename,
      fileSize(document.size),
      document.id,
    ]),
  );
}
