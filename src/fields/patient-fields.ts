import { DOCUMENT_TYPE_KEYS } from './document-fields.js';
import { field, fieldNamed, mergePatchFields, optionalText, type FieldSpec } from './field-spec.js';

/** PortalAccess (spec 2.3): one boolean per document type, each false unless given. */
export const PORTAL_ACCESS_FIELDS: readonly FieldSpec[] = DOCUMENT_TYPE_KEYS.map((key) => field.boolean(key, { default: false }));

// Generic in the name, as the builders are: a field's name stays its literal type (ValuesOf, typed test bodies).
const flag = <const N extends string>(name: N, fallback = false) => field.boolean(name, { default: fallback });
const nullableDate = <const N extends string>(name: N) => field.date(name, { nullable: true });
const nullableInteger = <const N extends string>(name: N) => field.integer(name, { nullable: true });

/**
 * Every field of the Patient request (spec 2.1, limits of section 8), in the specification's
 * order. Each is a column of the `patients` table of the same name unless `requestOnly`.
 */
export const PATIENT_INPUT_FIELDS = [
  // A name is what staff read and search: what prints as nothing is not stored (issue 39).
  field.string('first_name', { required: true, minLength: 1, maxLength: 128, dropsInvisible: true }),
  field.string('last_name', { required: true, minLength: 1, maxLength: 128, dropsInvisible: true }),
  optionalText('salutation'),
  optionalText('title'),
  optionalText('gender'),
  nullableDate('date_of_birth'),
  optionalText('avatar', 2_000_000),
  field.string('email', { nullable: true, maxLength: 320, format: 'email' }),
  optionalText('mobile', 32),
  optionalText('phone', 32),
  optionalText('fax', 32),
  optionalText('address_street'),
  optionalText('address_zip'),
  optionalText('address_city'),
  optionalText('address_state'),
  optionalText('address_country', 2),
  optionalText('insurance_type'),
  optionalText('insurer_name'),
  optionalText('insurance_number'),
  optionalText('supplemental_insurance'),
  field.uuid('insurer_id', { nullable: true }),
  optionalText('billing_recipient'),
  optionalText('reference_number'),
  optionalText('tin', 64),
  nullableDate('recall_date'),
  optionalText('recall_type'),
  optionalText('classification'),
  optionalText('cave'),
  optionalText('notes'),
  flag('gdpr_consent'),
  nullableDate('gdpr_consent_date'),
  optionalText('insured_status'),
  optionalText('billing_tariff', 64),
  optionalText('insurance_category', 32),
  optionalText('insurance_country', 2),
  optionalText('insurance_note'),
  flag('prescription_fee_exempt'),
  flag('is_doctor_relative'),
  flag('has_disability'),
  flag('has_supplemental_insurance'),
  optionalText('supplemental_insurance_label', 128),
  nullableInteger('supplemental_insurance_copies'),
  nullableInteger('recall_manual_month'),
  nullableInteger('recall_manual_year'),
  field.integer('recall_contact_count', { default: 0 }),
  nullableDate('recall_last_contact_at'),
  nullableInteger('recall_hygiene_interval_months'),
  nullableInteger('recall_checkup_interval_months'),
  flag('recall_blocked'),
  optionalText('visit_address_street'),
  optionalText('visit_address_zip'),
  optionalText('visit_address_city'),
  optionalText('visit_address_country', 2),
  flag('visit_address_same_as_main', true),
  optionalText('occupation', 128),
  optionalText('employer_name'),
  optionalText('employer_street'),
  optionalText('employer_zip'),
  optionalText('employer_city'),
  optionalText('employer_country', 2),
  optionalText('employer_phone', 32),
  optionalText('referrer_name'),
  optionalText('referral_reason'),
  optionalText('gp_name'),
  nullableDate('referral_date'),
  field.decimal('discount_percent', { default: '0' }),
  flag('dunning_blocked'),
  optionalText('bank_name', 128),
  optionalText('bank_bic', 16),
  optionalText('bank_iban', 40),
  nullableDate('last_anamnesis_date'),
  field.uuid('mandant_user_id', { nullable: true }),
  flag('newsletter_opt_in'),
  flag('suppress_payment_slip'),
  flag('appointments_blocked'),
  flag('consent_presentations'),
  flag('contact_consent'),
  field.stringListMap('communication_prefs', {
    nullable: true,
    // Channels to lists of preferences: a few of each. Bounded so that one patient row stays small.
    maxKeys: 32,
    maxKeyLength: 64,
    maxItems: 32,
    maxItemLength: 200,
    description:
      'Channel → preferences: at most 32 keys of at most 64 characters, each a list of at most 32 strings of at most 200 characters',
  }),
  field.object('portal_access', { fields: PORTAL_ACCESS_FIELDS }),
  // 1.3.0, "Rules and templates": a reminder due for this patient is skipped (`opted_out`).
  field.boolean('reminders_opt_out', { default: false, description: 'true: the patient gets no appointment reminders (1.3.0)' }),
  // Accepted for compatibility; this program has no patient portal accounts to link, so it is
  // validated and otherwise has no effect (docs/design-choices.md).
  field.boolean('link_existing_portal_user', { default: false, requestOnly: true }),
] as const satisfies readonly FieldSpec[];

/** Stored input fields: the request fields less the request-only ones. */
export const PATIENT_STORED_FIELDS: readonly FieldSpec[] = PATIENT_INPUT_FIELDS.filter((spec: FieldSpec) => !spec.requestOnly);

/** Fields only the response carries, stored as columns but never set through the API (spec 2.2). */
export const PATIENT_READ_ONLY_FIELDS = [
  optionalText('insurer_code'),
  nullableDate('last_panoramic_date'),
] as const satisfies readonly FieldSpec[];

/**
 * What the response adds to those (spec 2.2, decisions.md §4): identity, state and what the
 * patient owes, the sum of their open invoice balances as a decimal string.
 */
export const PATIENT_RESPONSE_EXTRA_FIELDS = [
  field.uuid('id', { description: 'Used to book appointments and upload documents' }),
  field.string('patient_number', { description: 'Unique, never reused, e.g. P-000001' }),
  field.boolean('is_active'),
  field.datetime('created_at'),
  field.datetime('updated_at'),
  field.decimal('outstanding_balance', {
    default: '0',
    description: 'Sum of the open invoice balances in outstanding_currency (a patient owing in several: see outstanding_balances)',
  }),
  field.string('outstanding_currency', { nullable: true, description: 'Currency of the open invoices; null while there are none' }),
] as const satisfies readonly FieldSpec[];

/**
 * What a patient owes in every currency of their open invoices (issue 39): 1.0.0's single
 * `outstanding_balance` names one currency, and a refund can leave a patient owing in two.
 */
const OUTSTANDING_BALANCES = field.objectList('outstanding_balances', {
  fields: [
    field.string('currency', { description: 'ISO 4217 code' }),
    field.decimal('amount', { description: 'The sum of the open invoice balances in this currency, e.g. "40.00"' }),
  ],
  description:
    'What is owed in each currency of the open invoices, by currency; [] when nothing is. outstanding_balance and outstanding_currency name one of them: the clinic currency when it is owed, else the one whose oldest open invoice is the oldest',
});

/** The Patient response (spec 2.2): every field presentPatient returns, each always present. */
export const PATIENT_RESPONSE_FIELDS = [
  ...PATIENT_RESPONSE_EXTRA_FIELDS,
  ...PATIENT_STORED_FIELDS,
  ...PATIENT_READ_ONLY_FIELDS,
  // After the fields of 1.0.0 (1.2.0).
  field.integer('version', { description: '1 at creation, +1 for each change; the ETag a PATCH may name in If-Match' }),
  // After those of 1.2.0 (issue 39).
  OUTSTANDING_BALANCES,
  // 1.3.0, "Erasure": set from the erasure until the last purge; only an admin session sees such a patient.
  field.datetime('erased_at', {
    nullable: true,
    description: 'When the patient was erased (1.3.0); its kept records are restricted until their retention ends. Null otherwise',
  }),
] as const satisfies readonly FieldSpec[];

/** The path of GET /patients/{patient_id} and the patient's document paths. */
export const PATIENT_PATH_FIELDS = [
  field.uuid('patient_id', { required: true, description: 'The patient' }),
] as const satisfies readonly FieldSpec[];

/**
 * The most words a search may hold (docs/design-choices.md): each word is checked against every
 * patient the others find, so more words cost more; a person types two or three.
 */
export const MAX_SEARCH_WORDS = 10;

/** Query parameters of GET /patients (clinic-api-1.1.md); `limit` and `after` are added by the operation. */
export const PATIENT_SEARCH_FIELDS = [
  field.string('q', {
    minLength: 1,
    maxLength: 200,
    description: `Words, each of which must match: a prefix of a word of the first or last name (case and accents ignored), the patient number (P-000042, p-42, 42), the date of birth (1961-07-23 or 23.07.1961), the whole email, or 4 or more digits of the phone or mobile number. At most ${MAX_SEARCH_WORDS} words (more: 422 value_error at ["query","q"])`,
  }),
] as const satisfies readonly FieldSpec[];

/** PatientSummary (clinic-api-1.1.md): one patient of a search result. */
export const PATIENT_SUMMARY_FIELDS = [
  fieldNamed(PATIENT_RESPONSE_EXTRA_FIELDS, 'id'),
  fieldNamed(PATIENT_RESPONSE_EXTRA_FIELDS, 'patient_number'),
  fieldNamed(PATIENT_INPUT_FIELDS, 'first_name'),
  fieldNamed(PATIENT_INPUT_FIELDS, 'last_name'),
  field.date('date_of_birth', { nullable: true }),
  field.string('email', { nullable: true }),
  field.string('mobile', { nullable: true }),
  fieldNamed(PATIENT_RESPONSE_EXTRA_FIELDS, 'is_active'),
  fieldNamed(PATIENT_RESPONSE_EXTRA_FIELDS, 'outstanding_balance'),
  fieldNamed(PATIENT_RESPONSE_EXTRA_FIELDS, 'outstanding_currency'),
  // After the fields of 1.1.0 (issue 39).
  OUTSTANDING_BALANCES,
] as const satisfies readonly FieldSpec[];

/**
 * The body of PATCH /patients/{patient_id} (clinic-api-1.2.md), a JSON merge patch: the fields
 * of a new patient but `link_existing_portal_user`, plus `is_active`, each optional and without
 * a default; `portal_access` merged key by key.
 */
export const PATIENT_PATCH_FIELDS = mergePatchFields([
  ...(PATIENT_STORED_FIELDS as readonly Exclude<(typeof PATIENT_INPUT_FIELDS)[number], { requestOnly: true }>[]),
  field.boolean('is_active', { description: 'false: the patient is kept, with its records, and still found' }),
] as const);

/** The header of a change that must not overwrite another: If-Match names the version it was made on. */
export const IF_MATCH_HEADER_FIELDS = [
  field.string('if-match', {
    maxLength: 1000,
    description: 'The ETag (`"<version>"`) the change was made on, or `*`: another version is 412 PRECONDITION_FAILED',
  }),
] as const satisfies readonly FieldSpec[];
