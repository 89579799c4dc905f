import { errors } from '../../domain/errors.js';
import { DOCUMENT_FORM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** POST /patients/{patient_id}/documents: the form is read by receiveDocumentUpload (mount-operations.ts). */
export const documentOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/patients/{patient_id}/documents',
    operationId: 'uploadDocument',
    summary: 'Upload a document for a patient',
    description: 'The file is streamed to disk, never held in memory; an empty `type` or `title` counts as absent.',
    tag: 'documents',
    scope: 'documents:write',
    pathFields: DOCUMENT_PATH_FIELDS,
    body: { kind: 'multipart', fields: DOCUMENT_FORM_FIELDS, file: 'file', example: examples.documentFormExample },
    refusals: [
      errors.patientNotFound(404),
      errors.documentTypeInvalid(examples.documentTypesExample.map((t) => t.key)),
      errors.documentEmpty(),
    ],
    result: { kind: 'model', status: 201, model: 'Document', description: 'The document was stored', example: examples.documentExample },
    handler: () => (ctx) => ctx.state.upload!.complete(ctx.state.form ?? {}),
  },
];
