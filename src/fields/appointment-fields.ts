import { field, fieldNamed, mergePatchFields, optionalText, type FieldSpec } from './field-spec.js';

/** An appointment's statuses (1.2.0); a 1.0.0 booking may hold any other text, which any of these may follow. */
export const APPOINTMENT_STATUSES = ['booked', 'arrived', 'completed', 'no_show', 'cancelled'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** Whether a booking may overlap another of its doctor's (1.2.0): `allow`, as 1.0.0 did, or `reject` (409). */
const overlap = () =>
  field.literal('overlap', {
    values: ['allow', 'reject'],
    default: 'allow',
    requestOnly: true,
    description:
      'reject: refused (409 APPOINTMENT_OVERLAP) if the doctor has another booked or arrived appointment that intersects it; default allow',
  });

/** The most services one appointment may list: a visit is a handful of treatments, never a bulk import. */
export const MAX_SERVICES_PER_APPOINTMENT = 20;
/**
 * Every field of the Appointment request (spec 2.4, limits of section 8), in the specification's
 * order. `patient_id` is nullable in the schema, as the specification types it, and `required`
 * so that an absent one is a 422 `missing` (decisions.md §5); the domain refuses a null one too.
 */
export const APPOINTMENT_INPUT_FIELDS = [
  field.datetime('start_at', { required: true, description: 'Start, ISO 8601; without an offset in clinic local time' }),
  field.datetime('end_at', { required: true, description: 'End, after start_at; ISO 8601' }),
  field.uuid('patient_id', { required: true, nullable: true, description: 'The patient (from create-patient)' }),
  field.uuid('resource_id', { nullable: true, description: 'The doctor (from doctor list)' }),
  field.uuid('service_id', { nullable: true, description: 'The service (from service list)' }),
  field.uuidList('service_ids', {
    maxItems: MAX_SERVICES_PER_APPOINTMENT,
    description: `Several services, in order (at most ${MAX_SERVICES_PER_APPOINTMENT})`,
  }),
  optionalText('title', 200),
  field.string('status', { default: 'booked', description: 'Free text' }),
  optionalText('appointment_type', 64),
  optionalText('color', 16),
  optionalText('notes'),
  overlap(),
] as const satisfies readonly FieldSpec[];

/**
 * The request fields that are columns of `appointments`; `service_ids` lives in
 * `appointment_services`, and `overlap` is a rule of the request, never stored.
 */
export const APPOINTMENT_STORED_FIELDS = APPOINTMENT_INPUT_FIELDS.filter(
  (spec): spec is Exclude<(typeof APPOINTMENT_INPUT_FIELDS)[number], { name: 'service_ids' | 'overlap' }> =>
    spec.name !== 'service_ids' && spec.name !== 'overlap',
);

/** Why an appointment's status changed (1.2.0): set by a PATCH (`appointment cancel --reason`), stored, answered. */
const STATUS_REASON = field.string('status_reason', {
  nullable: true,
  maxLength: 500,
  description: 'Why the status changed, e.g. why it was cancelled',
});

/** The body of PATCH /appointments/{appointment_id} (1.2.0), a JSON merge patch. */
export const APPOINTMENT_PATCH_FIELDS = [
  ...mergePatchFields(
    APPOINTMENT_INPUT_FIELDS.filter(
      (spec): spec is Exclude<(typeof APPOINTMENT_INPUT_FIELDS)[number], { name: 'patient_id' | 'status' | 'overlap' }> =>
        spec.name !== 'patient_id' && spec.name !== 'status' && spec.name !== 'overlap',
    ),
  ),
  field.literal('status', {
    values: APPOINTMENT_STATUSES,
    description: `One of ${APPOINTMENT_STATUSES.join(', ')}; a move the status table forbids is 409`,
  }),
  STATUS_REASON,
  field.literal('overlap', {
    values: ['allow', 'reject'],
    description:
      'reject: refused (409 APPOINTMENT_OVERLAP) if it would end up intersecting another booked or arrived appointment of its doctor',
  }),
] as const;

/** `end_at` as the desk books: optional when services are booked. */
const DESK_END_AT = field.datetime('end_at', { description: "End, after start_at (default: the start plus the services' lengths)" });

/**
 * The booking the desk makes (`clinic book-appointment`): POST /appointments's fields, but
 * `end_at` may be left out when services are booked, whose lengths then set it.
 */
export const DESK_BOOKING_FIELDS = APPOINTMENT_INPUT_FIELDS.map((spec) => (spec.name === 'end_at' ? DESK_END_AT : spec)) as readonly (
  Exclude<(typeof APPOINTMENT_INPUT_FIELDS)[number], { name: 'end_at' }> | typeof DESK_END_AT
)[];

/** A reschedule at the desk (`clinic appointment reschedule`): a new start, and an end unless it keeps its length. */
export const RESCHEDULE_FIELDS = [
  fieldNamed(APPOINTMENT_INPUT_FIELDS, 'start_at'),
  fieldNamed(APPOINTMENT_PATCH_FIELDS, 'end_at'),
  fieldNamed(APPOINTMENT_PATCH_FIELDS, 'overlap'),
] as const;

/**
 * Columns only the response carries (spec 2.5): confirmation and rescheduling state, set by
 * workflows other than booking. Booking sets `clinic_confirmed_at` and leaves the rest null.
 */
export const APPOINTMENT_READ_ONLY_FIELDS = [
  field.datetime('clinic_confirmed_at', { nullable: true }),
  field.datetime('patient_confirmed_at', { nullable: true }),
  field.datetime('reschedule_from_start_at', { nullable: true }),
  field.datetime('reschedule_from_end_at', { nullable: true }),
  field.datetime('reschedule_at', { nullable: true }),
  optionalText('reschedule_by_role'),
  field.datetime('confirmation_reminder_sent_at', { nullable: true }),
] as const satisfies readonly FieldSpec[];

/** What the status says besides itself (1.2.0): why, and when it last changed. Stored; set by a PATCH. */
export const APPOINTMENT_STATUS_DETAIL_FIELDS = [
  STATUS_REASON,
  field.datetime('status_changed_at', { nullable: true, description: 'When the status last changed (1.2.0); null while it never did' }),
  field.datetime('patient_declined_at', {
    nullable: true,
    description: 'When the patient said they will not come (1.3.0, a reply to a reminder); the status stays until the desk cancels',
  }),
] as const satisfies readonly FieldSpec[];

/** Who still owes a confirmation of an appointment (spec 2.5, decisions.md §5). */
export const CONFIRMATION_STATES = ['awaiting_patient', 'awaiting_clinic', 'confirmed', 'n_a', 'declined'] as const;

/** AppointmentServiceBrief of spec 2.5. */
export const APPOINTMENT_SERVICE_BRIEF_FIELDS = [
  field.uuid('id'),
  field.string('name'),
  field.string('color'),
  field.integer('default_duration_min'),
] as const satisfies readonly FieldSpec[];

/** The Appointment response (spec 2.5): every field presentAppointment returns, each always present. */
export const APPOINTMENT_RESPONSE_FIELDS = [
  field.uuid('id'),
  field.string('appointment_number', { description: 'Unique, never reused, e.g. A-000001' }),
  field.string('booking_source', { description: 'api or cli for bookings made by this program' }),
  ...APPOINTMENT_STORED_FIELDS,
  field.datetime('created_at'),
  field.datetime('updated_at'),
  optionalText('patient_first_name'),
  optionalText('patient_last_name'),
  optionalText('patient_number'),
  optionalText('patient_email'),
  optionalText('patient_mobile'),
  optionalText('patient_cave'),
  optionalText('patient_classification'),
  optionalText('service_name'),
  optionalText('service_color'),
  field.uuidList('service_ids', { description: 'The services booked, in order' }),
  field.objectList('services', { fields: APPOINTMENT_SERVICE_BRIEF_FIELDS, description: 'The services of service_ids, in that order' }),
  ...APPOINTMENT_READ_ONLY_FIELDS,
  field.literal('confirmation_state', { values: CONFIRMATION_STATES, readOnly: true, description: 'Who still owes a confirmation' }),
  // After the fields of 1.0.0, in their order.
  ...APPOINTMENT_STATUS_DETAIL_FIELDS,
] as const satisfies readonly FieldSpec[];

/** The path of GET /appointments/{appointment_id}. */
export const APPOINTMENT_PATH_FIELDS = [
  field.uuid('appointment_id', { required: true, description: 'The appointment' }),
] as const satisfies readonly FieldSpec[];

/**
 * Query parameters of GET /appointments (clinic-api-1.1.md) less `limit` and `after`. `from` and
 * `to` are each a date or a date-time, told apart and checked by the use case
 * (list-appointments.ts), so the schema says string.
 */
export const APPOINTMENT_WINDOW_FIELDS = [
  field.string('from', {
    description:
      'Start of the window: a date (the start of that day in clinic time) or a date-time (clinic time when it has no offset). Default: the start of today',
  }),
  field.string('to', {
    description:
      'End of the window, exclusive: a date (the END of that day in clinic time) or a date-time; after `from`, at most 92 days later. Default: the end of the day on which `from` falls',
  }),
  field.uuid('resource_id', { description: "Only this doctor's appointments" }),
  field.uuid('patient_id', { description: "Only this patient's appointments" }),
] as const satisfies readonly FieldSpec[];
