// src/domain/documents/read-documents.ts: listing and downloading a patient's documents (clinic-api-1.1.md, documents endpoints).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { documentFilePath } from '../../../src/db/document-files.js';
import { insertDocument, type DocumentRow } from '../../../src/db/documents.js';
import type { Db } from '../../../src/db/open-database.js';
import { FIND_DOCUMENT, LIST_DOCUMENTS, openDocument, READ_DOCUMENT } from '../../../src/domain/documents/read-documents.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { AppError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { uploadTestPdf } from '../../helpers/uploads.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * A patient's documents read (clinic-api-1.1.md, GET /patients/{patient_id}/documents and its
 * download; clinic-api-1.2.md, "Audit trail": document.list, document.read): LIST_DOCUMENTS,
 * FIND_DOCUMENT, READ_DOCUMENT. The download's headers and 304, and the Link header:
 * test/server/routes/documents.test.ts.
 */

interface Given {
  patientId: string;
  /** Ada's documents, oldest first. */
  documents: DocumentRow[];
  /** A document of another patient. */
  othersDocument: DocumentRow;
  /** Where a page after the first starts. */
  cursor?: string;
}

/** A document's row as an upload stores it, made at `createdAt` (its bytes are not needed to list it). */
function aDocument(db: Db, patientId: string, createdAt: string, type = 'xrays'): DocumentRow {
  return insertDocument(db, {
    id: randomUUID(),
    patient_id: patientId,
    filename: `${type}.pdf`,
    content_type: 'application/pdf',
    size: 4,
    sha256: 'e'.repeat(64),
    title: null,
    type,
    created_at: createdAt,
  });
}

/** Ada's three documents, the last two stored in the same millisecond, and one of Grace's. */
function adaWithDocuments(db: Db): Given {
  const patientId = createTestPatient(db).id;
  const grace = createTestPatient(db, { first_name: 'Grace', last_name: 'Hopper' }).id;
  const documents = [
    aDocument(db, patientId, '2026-11-28T10:00:00.000Z'),
    aDocument(db, patientId, '2026-11-30T10:00:00.000Z', 'scans'),
    aDocument(db, patientId, '2026-11-30T10:00:00.000Z', 'consent'),
  ];
  return { patientId, documents, othersDocument: aDocument(db, grace, '2026-11-30T11:00:00.000Z') };
}

/** The cursor after the first `limit` of Ada's documents, read as nobody (it records nothing). */
const cursorAfter = (db: Db, patientId: string, limit: number) =>
  performUseCase(LIST_DOCUMENTS, db, { path: { patient_id: patientId }, query: { limit: String(limit) } }, { source: 'cli', actor: null })
    .next!;

const documentList = (patientId: string) => ({
  action: 'document.list',
  patient_id: patientId,
  subject_type: 'document',
  subject_id: null,
});
const ids = (documents: readonly DocumentRow[]) => documents.map(({ id }) => ({ id }));

const listing: Scenario<Given>[] = [
  {
    title: 'lists the documents newest first, a tie by the order stored, and records one document.list',
    given: adaWithDocuments,
    request: (given) => ({ path: { patient_id: given.patientId }, query: {} }),
    expect: ({ patientId, documents: [first, second, third] }) => ({
      result: {
        items: [
          { id: third!.id, document_number: third!.document_number, type: 'consent', sha256: 'e'.repeat(64), title: null },
          { id: second!.id },
          { id: first!.id },
        ],
        next: null,
      },
      audit: [documentList(patientId)],
      changes: [],
    }),
  },
  {
    title: 'cuts a page at limit, with a cursor to the next',
    given: adaWithDocuments,
    request: (given) => ({ path: { patient_id: given.patientId }, query: { limit: '2' } }),
    expect: ({ patientId, documents }) => ({
      result: { items: ids([documents[2]!, documents[1]!]), next: /./ },
      audit: [documentList(patientId)],
      changes: [],
    }),
  },
  {
    title: 'gives the page after a cursor, past the tie, and records the read of that page too',
    given: (db) => {
      const given = adaWithDocuments(db);
      return { ...given, cursor: cursorAfter(db, given.patientId, 2) };
    },
    request: (given) => ({ path: { patient_id: given.patientId }, query: { after: given.cursor! } }),
    expect: ({ patientId, documents }) => ({
      result: { items: ids([documents[0]!]), next: null },
      audit: [documentList(patientId)],
      changes: [],
    }),
  },
  {
    title: 'refuses a cursor it did not make (value_error)',
    given: adaWithDocuments,
    request: (given) => ({ path: { patient_id: given.patientId }, query: { after: 'page-2' } }),
    expect: () => ({ invalid: ['query.after'], types: ['value_error'] }),
  },
  {
    title: 'refuses a page of 201',
    given: adaWithDocuments,
    request: (given) => ({ path: { patient_id: given.patientId }, query: { limit: '201' } }),
    expect: () => ({ invalid: ['query.limit'], types: ['less_than_equal'] }),
  },
  {
    title: 'refuses an unknown patient (404 PATIENT_NOT_FOUND)',
    given: adaWithDocuments,
    request: () => ({ path: { patient_id: randomUUID() }, query: {} }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a scheduler, who sees no documents (403 ROLE_FORBIDDEN)',
    given: adaWithDocuments,
    request: (given) => ({ path: { patient_id: given.patientId }, query: {} }),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

const download = (patientId: string, documentId: string) => () => ({ path: { patient_id: patientId, document_id: documentId } });

const finding: Scenario<Given>[] = [
  {
    title: 'finds the document, recording nothing until its bytes are delivered (a 304 shows nothing)',
    given: adaWithDocuments,
    request: (given) => download(given.patientId, given.documents[0]!.id)(),
    expect: ({ documents }) => ({ result: { ...documents[0]! }, audit: [], changes: [] }),
  },
  {
    title: "refuses another patient's document as not found (404 DOCUMENT_NOT_FOUND)",
    given: adaWithDocuments,
    request: (given) => download(given.patientId, given.othersDocument.id)(),
    expect: () => ({ refused: 'DOCUMENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses an unknown patient first (404 PATIENT_NOT_FOUND)',
    given: adaWithDocuments,
    request: (given) => download(randomUUID(), given.othersDocument.id)(),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses billing, who lists documents but may not open them (403 ROLE_FORBIDDEN)',
    given: adaWithDocuments,
    request: (given) => download(given.patientId, given.documents[0]!.id)(),
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

const reading: Scenario<Given>[] = [
  {
    title: 'reads a document by its id alone, as the desk names it, and records its document.read',
    given: adaWithDocuments,
    request: (given) => ({ path: { document_id: given.othersDocument.id } }),
    expect: ({ othersDocument }) => ({
      result: { ...othersDocument },
      audit: [{ action: 'document.read', patient_id: othersDocument.patient_id, subject_type: 'document', subject_id: othersDocument.id }],
      changes: [],
    }),
  },
  {
    title: 'refuses an unknown id (404 DOCUMENT_NOT_FOUND)',
    given: adaWithDocuments,
    request: () => ({ path: { document_id: randomUUID() } }),
    expect: () => ({ refused: 'DOCUMENT_NOT_FOUND', status: 404, message: /^No document has this id\.$/ }),
  },
];

describeScenarios("listing a patient's documents (LIST_DOCUMENTS)", LIST_DOCUMENTS, listing);
describeScenarios('finding a document to download (FIND_DOCUMENT)', FIND_DOCUMENT, finding);
describeScenarios('reading a document by its id (READ_DOCUMENT)', READ_DOCUMENT, reading);

describe("opening a document's bytes", () => {
  const data = useTestDatabase();

  /** A document uploaded with `bytes` for a new patient, as FIND_DOCUMENT finds it for its download. */
  async function storedDocument(bytes: Buffer) {
    const patientId = createTestPatient(data.db).id;
    const documentId = await uploadTestPdf(data, patientId, 'xrays', 'xray.pdf', bytes);
    return performUseCase(FIND_DOCUMENT, data.db, download(patientId, documentId)(), DESK_USER);
  }

  it('opens the bytes an upload stored, for the caller to send and close', async () => {
    const bytes = Buffer.from('%PDF-1.7 panoramic x-ray');
    const found = await storedDocument(bytes);
    const { document, file } = await openDocument(data.dataDir, found);
    try {
      assert.equal(document, found);
      assert.ok((await file.readFile()).equals(bytes), 'the bytes as uploaded');
    } finally {
      await file.close();
    }
  });

  it("answers a document whose file is gone, or whose patient's folder is, 500 STORAGE_FAILED, not a program error", async () => {
    for (const remove of [documentFilePath, (dataDir: string, patientId: string) => join(dataDir, 'documents', patientId)]) {
      const found = await storedDocument(Buffer.from('scan'));
      rmSync(remove(data.dataDir, found.patient_id, found.id), { recursive: true });
      await assert.rejects(openDocument(data.dataDir, found), (error: unknown) => {
        assert.ok(error instanceof AppError, `an AppError, not ${String(error)}`);
        assert.deepEqual([error.code, error.status], ['STORAGE_FAILED', 500]);
        return true;
      });
    }
  });
});
