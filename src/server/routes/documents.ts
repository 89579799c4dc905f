import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { wasReplayed } from '../../domain/idempotent-answers.js';
import { FIND_DOCUMENT, LIST_DOCUMENTS, openDocument } from '../../domain/documents/read-documents.js';
import { errors } from '../../errors.js';
import { DOCUMENT_FORM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import * as examples from '../openapi/examples.js';
import { markReplayed, REPLAYED_HEADER, useCaseOperation, type Operation } from '../api/operation.js';
import { sendDocument } from '../api/send-document.js';
import { ROLE_ROWS } from '../../domain/people/roles.js';

/**
 * POST /patients/{patient_id}/documents (the form is read by receiveDocumentUpload,
 * mount-operations.ts); the list and the download (1.1.0).
 */
export const documentOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/patients/{patient_id}/documents',
    operationId: 'uploadDocument',
    roles: ROLE_ROWS.documents,
    summary: 'Upload a document for a patient',
    description:
      'The file is streamed to disk, never held in memory; an empty `type` or `title` counts as absent. ' +
      "The `file` part's Content-Type must be a media type (type/subtype, optional parameters) of at most 255 characters, " +
      'else 422 `value_error` at `["body","file"]`; it is stored as type/subtype in lower case, `text/plain` when the part declares none. ' +
      'A part header with a control character other than tab (a raw one in a file name) makes the form malformed: 422 `value_error` at `["body"]`; ' +
      "send such a name percent-encoded in `filename*=utf-8''…`. " +
      'Repeating an `Idempotency-Key` with the same upload (patient, `type`, `title`, and the file: its bytes, name and type) within 24 hours ' +
      'answers the first document with `Idempotent-Replayed: true` and stores nothing; another upload with it is 422 `IDEMPOTENCY_KEY_REUSED`.',
    tag: 'documents',
    scope: 'documents:write',
    pathFields: DOCUMENT_PATH_FIELDS,
    headerFields: IDEMPOTENCY_HEADER_FIELDS,
    body: { kind: 'multipart', fields: DOCUMENT_FORM_FIELDS, file: 'file', example: examples.documentFormExample },
    refusals: [
      errors.patientNotFound(404),
      errors.documentTypeInvalid(examples.documentTypesExample.map((t) => t.key)),
      errors.documentEmpty(),
      errors.idempotencyKeyReused(),
    ],
    result: {
      kind: 'model',
      status: 201,
      model: 'Document',
      description: 'The document was stored, or an earlier upload with this Idempotency-Key is replayed',
      example: examples.documentExample,
      headers: REPLAYED_HEADER,
    },
    // The upload is no use case object: its file arrives as a stream, checked while it is read
    // (DocumentUpload, shared with `clinic upload-document`), and its row is committed through
    // the server's commit groups.
    handler: () => async (ctx) => {
      const document = await ctx.state.upload!.complete(ctx.state.form ?? {});
      markReplayed(ctx, wasReplayed(document));
      return document;
    },
  },
  useCaseOperation(LIST_DOCUMENTS, {
    method: 'get',
    path: '/patients/{patient_id}/documents',
    operationId: 'listDocuments',
    description: 'Newest first.',
    tag: 'documents',
    scope: 'documents:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'DocumentItem',
      paged: true,
      description: "One page of the patient's documents",
      example: examples.documentItemListExample,
    },
  }),
  useCaseOperation(FIND_DOCUMENT, {
    method: 'get',
    path: '/patients/{patient_id}/documents/{document_id}',
    operationId: 'downloadDocument',
    description:
      'The bytes as stored, streamed. `ETag` is the SHA-256 of the bytes: send it as `If-None-Match` to get a 304 instead of the file.',
    tag: 'documents',
    scope: 'documents:read',
    result: { kind: 'download', description: 'The stored bytes' },
    // The document.read FIND_DOCUMENT declares is recorded when the bytes are delivered: a 304 records nothing.
    answer: async (ctx, document, { config }, delivered) => sendDocument(ctx, await openDocument(config.dataDir, document), delivered),
  }),
];
