import { Readable } from 'node:stream';
import { uploadDocument } from '../../src/domain/documents/upload-document.js';
import type { TestDatabase } from './fixtures.js';
import { DESK_USER } from './use-case-scenarios.js';

/** Uploads `bytes` at the desk as the PDF `filename` of `type` for `patientId` (at most 1 KiB taken), as the program does; the document's id. */
export async function uploadTestPdf(data: TestDatabase, patientId: string, type: string, filename: string, bytes: Buffer): Promise<string> {
  const uploaded = await uploadDocument(
    data.db,
    { dataDir: data.dataDir, limitBytes: 1024 },
    { patientId, fields: { type }, file: { stream: Readable.from([bytes]), filename, contentType: 'application/pdf' } },
    DESK_USER.actor!,
  );
  return uploaded.id;
}
