import { MONEY_DIGITS } from './billing-fields.js';
import { field, mergePatchFields, type FieldSpec } from './field-spec.js';

/**
 * Doctors and services are added and corrected by staff from the command line. The specification
 * gives their response fields (2.6, 2.7; `retired_at` from 1.3.0) but no limits; these are ours
 * (docs/design-choices.md): names as long as a patient's name, colours as long as an appointment's
 * colour.
 */

/** The colours a calendar takes by name (clinic-api-1.3.md), stored in lower case. */
export const COLOR_NAMES = ['blue', 'green', 'red', 'orange', 'purple', 'teal', 'pink', 'grey', 'yellow', 'brown'] as const;

const name = (description: string) => field.string('name', { required: true, minLength: 1, maxLength: 128, description });

const color = (example: string) =>
  field.string('color', {
    required: true,
    minLength: 1,
    maxLength: 16,
    description: `Calendar colour: #RGB or #RRGGBB (e.g. ${example}), or one of ${COLOR_NAMES.join(', ')}`,
  });

/** `--allow-duplicate`: a name an active doctor or service already has is taken all the same. */
const allowDuplicate = field.boolean('allow_duplicate', {
  default: false,
  requestOnly: true,
  description: 'Take a name that an active one already has (compared without case or accents)',
});

/** `clinic doctor add`. */
export const DOCTOR_INPUT_FIELDS = [
  name('Name shown in the calendar'),
  color('#3366ff'),
  allowDuplicate,
] as const satisfies readonly FieldSpec[];

/** `clinic service add`. */
export const SERVICE_INPUT_FIELDS = [
  name('Name of the treatment'),
  field.integer('duration_min', { required: true, minimum: 1, maximum: 1440, description: 'Default length in minutes' }),
  field.money('price', { required: true, minimum: 0, ...MONEY_DIGITS, description: 'Price in the clinic currency' }),
  color('#33aa55'),
  allowDuplicate,
] as const satisfies readonly FieldSpec[];

/** `clinic doctor edit`: what is given changes, the rest stays (a merge patch of the add's fields). */
export const DOCTOR_PATCH_FIELDS = mergePatchFields(DOCTOR_INPUT_FIELDS);

/** `clinic service edit`: a new price applies to what is booked or invoiced afterwards. */
export const SERVICE_PATCH_FIELDS = mergePatchFields(SERVICE_INPUT_FIELDS);

/** The doctor a correction names. */
export const DOCTOR_PATH_FIELDS = [field.uuid('doctor_id', { required: true })] as const satisfies readonly FieldSpec[];

/** The service a correction names. */
export const SERVICE_PATH_FIELDS = [field.uuid('service_id', { required: true })] as const satisfies readonly FieldSpec[];

/** The query of GET /doctors and GET /services (1.3.0). */
export const CATALOG_QUERY_FIELDS = [
  field.boolean('include_retired', {
    default: false,
    acceptsText: true,
    description: 'Also the retired ones (1.3.0); by default only those that can be booked',
  }),
] as const satisfies readonly FieldSpec[];

/** When it was retired (1.3.0), appended after the 1.0.0 fields. */
const retiredAt = field.datetime('retired_at', { nullable: true, description: 'When it was retired (1.3.0); null while it can be booked' });

/** A colour as stored: colours stored before 1.3.0 were not checked, so any text. */
const storedColor = field.string('color', { description: 'Calendar colour' });

/** Doctor of spec 2.7: the id is used as `resource_id` when booking. */
export const DOCTOR_FIELDS = [field.uuid('id'), field.string('name'), storedColor, retiredAt] as const satisfies readonly FieldSpec[];

/** Service of spec 2.6: the id is used as `service_id` when booking; `price` in the clinic currency. */
export const SERVICE_FIELDS = [
  field.uuid('id'),
  field.string('name'),
  field.integer('duration_min', { minimum: 1, description: 'Default length in minutes' }),
  field.money('price', { minimum: 0, ...MONEY_DIGITS, description: 'Price in the clinic currency' }),
  storedColor,
  retiredAt,
] as const satisfies readonly FieldSpec[];
