import { MONEY_DIGITS } from './billing-fields.js';
import { field, type FieldSpec } from './field-spec.js';

/**
 * Doctors and services are added by staff from the command line. The specification gives their
 * response fields (2.6, 2.7) but no limits; these are ours (docs/decisions.md): names as long
 * as a patient's name, colours as long as an appointment's colour. `clinic doctor add`:
 */
export const DOCTOR_INPUT_FIELDS = [
  field.string('name', { required: true, minLength: 1, maxLength: 128, description: 'Name shown in the calendar' }),
  field.string('color', { required: true, minLength: 1, maxLength: 16, description: 'Calendar colour, e.g. #3366ff' }),
] as const satisfies readonly FieldSpec[];

/** `clinic service add`. */
export const SERVICE_INPUT_FIELDS = [
  field.string('name', { required: true, minLength: 1, maxLength: 128, description: 'Name of the treatment' }),
  field.integer('duration_min', { required: true, minimum: 1, maximum: 1440, description: 'Default length in minutes' }),
  field.money('price', { required: true, minimum: 0, ...MONEY_DIGITS, description: 'Price in the clinic currency' }),
  field.string('color', { required: true, minLength: 1, maxLength: 16, description: 'Calendar colour, e.g. #33aa55' }),
] as const satisfies readonly FieldSpec[];

/** Doctor of spec 2.7: the id is used as `resource_id` when booking. */
export const DOCTOR_FIELDS = [field.uuid('id'), ...DOCTOR_INPUT_FIELDS] as const satisfies readonly FieldSpec[];

/** Service of spec 2.6: the id is used as `service_id` when booking; `price` in the clinic currency. */
export const SERVICE_FIELDS = [field.uuid('id'), ...SERVICE_INPUT_FIELDS] as const satisfies readonly FieldSpec[];
