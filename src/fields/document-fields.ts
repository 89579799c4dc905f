import { field, type FieldSpec } from './field-spec.js';
import { DOCUMENT_TYPE_KEYS } from './patient-fields.js';

/** The path parameter of POST /patients/{patient_id}/documents. */
export const DOCUMENT_PATH_FIELDS: readonly FieldSpec[] = [field.uuid('patient_id', { required: true, description: 'The patient (from create-patient)' })];

/**
 * The text fields of the upload form (spec 4, POST /patients/{patient_id}/documents). The `file`
 * part is not described here: it is a stream, never a value. `type` is a plain string in the
 * schema because an unknown key is the coded DOCUMENT_TYPE_INVALID, not a schema error.
 */
export const DOCUMENT_FORM_FIELDS: readonly FieldSpec[] = [
  field.string('title', { nullable: true, description: 'A title for people' }),
  field.string('type', { default: 'other', description: `Document type: ${DOCUMENT_TYPE_KEYS.join(', ')}` }),
];
