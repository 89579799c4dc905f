import { field, type FieldSpec } from './field-spec.js';

/** The document types a patient's portal access and uploads are keyed by (spec 2.3, 2.12). */
export const DOCUMENT_TYPE_KEYS = [
  'invoices',
  'quotations',
  'xrays',
  'scans',
  'prescriptions',
  'consent',
  'communications',
  'other',
] as const;

/** The path parameter of POST /patients/{patient_id}/documents. */
export const DOCUMENT_PATH_FIELDS = [
  field.uuid('patient_id', { required: true, description: 'The patient (from create-patient)' }),
] as const satisfies readonly FieldSpec[];

/**
 * The text fields of the upload form (spec 4, POST /patients/{patient_id}/documents). The `file`
 * part is not described here: it is a stream, never a value. `type` is a plain string in the
 * schema because an unknown key is the coded DOCUMENT_TYPE_INVALID, not a schema error.
 */
export const DOCUMENT_FORM_FIELDS = [
  field.string('title', { nullable: true, description: 'A title for people' }),
  field.string('type', { default: 'other', description: `Document type: ${DOCUMENT_TYPE_KEYS.join(', ')}` }),
] as const satisfies readonly FieldSpec[];

/** The Document upload response of spec 2.11 (decisions.md §6 for filename and content_type): interface 1.0.0's fields. */
const DOCUMENT_1_0_FIELDS = [
  field.uuid('id'),
  field.string('filename', { minLength: 1, maxLength: 255, description: "The client's file name reduced to its base name" }),
  field.string('content_type', {
    description: "The part's Content-Type as type/subtype in lower case (text/plain when the part declares none)",
  }),
  field.integer('size', { minimum: 1, description: 'Bytes' }),
  field.datetime('created_at'),
  field.literal('type', { values: DOCUMENT_TYPE_KEYS }),
] as const satisfies readonly FieldSpec[];

/**
 * The number on paper (interface 1.3.0), appended after the fields of the interface that had the
 * shape before it, so a client reading them by position still finds them where it did.
 */
const DOCUMENT_NUMBER_FIELD = field.string('document_number', {
  pattern: '^D-[0-9]{6,}$',
  description: 'The number staff see on paper, D-000017 (1.3.0): never reused; the desk takes it wherever it names a document',
});

/** The Document upload response: spec 2.11's fields, then the document's number. */
export const DOCUMENT_FIELDS = [...DOCUMENT_1_0_FIELDS, DOCUMENT_NUMBER_FIELD] as const satisfies readonly FieldSpec[];

/** The path of GET /patients/{patient_id}/documents/{document_id}. */
export const DOCUMENT_DOWNLOAD_PATH_FIELDS = [
  DOCUMENT_PATH_FIELDS[0],
  field.uuid('document_id', { required: true, description: 'The document (from the upload or the document list)' }),
] as const satisfies readonly FieldSpec[];

/** DocumentItem (clinic-api-1.1.md): the upload response plus the title and the SHA-256 of the bytes, then the number (1.3.0). */
export const DOCUMENT_ITEM_FIELDS = [
  ...DOCUMENT_1_0_FIELDS,
  field.string('title', { nullable: true }),
  field.string('sha256', { pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored bytes, lowercase hex; also the download ETag' }),
  DOCUMENT_NUMBER_FIELD,
] as const satisfies readonly FieldSpec[];
