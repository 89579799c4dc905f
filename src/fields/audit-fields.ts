import { AUDIT_ACTIONS } from '../audit-actions.js';
import { field, type FieldSpec } from './field-spec.js';

/** The subjects an event names (the first word of its action). */
const SUBJECT_TYPES = [
  'patient',
  'appointment',
  'document',
  'invoice',
  'payment',
  'refund',
  'data',
  'catalog',
  'setting',
  'person',
  'session',
  'key',
  'webhook',
  'device',
  'reminder',
] as const;

/** Every action's first word is a subject above: a new word in AUDIT_ACTIONS without its subject does not compile. */
type FirstWord<A> = A extends `${infer W}.${string}` ? W : never;
type MissingSubject = Exclude<FirstWord<(typeof AUDIT_ACTIONS)[number]>, (typeof SUBJECT_TYPES)[number]>;
const everySubjectListed: [MissingSubject] extends [never] ? true : MissingSubject = true;
void everySubjectListed;

/** An event of the audit trail, as GET /audit-events and `clinic audit list --json` give it (clinic-api-1.2.md). */
export const AUDIT_EVENT_FIELDS = [
  field.integer('seq', { required: true, minimum: 1, description: '1, 2, 3, … without gaps, in the order recorded' }),
  field.datetime('at', { required: true, description: 'When, UTC' }),
  field.literal('action', { required: true, values: AUDIT_ACTIONS }),
  field.uuid('patient_id', {
    required: true,
    nullable: true,
    description: 'Whose data; null for data.export, data.import, catalog.update and setting.update (1.3.0)',
  }),
  field.string('patient_number', { required: true, nullable: true }),
  field.literal('subject_type', { required: true, values: SUBJECT_TYPES, description: 'The first word of the action' }),
  field.uuid('subject_id', {
    required: true,
    nullable: true,
    description: 'The one record the action names; null for a list read, data.* and setting.update',
  }),
  field.literal('actor_type', {
    required: true,
    values: ['api_key', 'cli', 'person', 'device', 'system'],
    description:
      'An API key, the operating system user at the command line, a person logged in (1.3.0), a desk PC (1.3.0), or `clinic serve` itself (1.3.0)',
  }),
  field.string('actor_id', {
    required: true,
    description: "The key's id; for the command line the operating system's user name; the person's id",
  }),
  field.string('actor_name', { required: true, description: "The key's name; for the command line the user name; the person's name" }),
  field.string('source', {
    required: true,
    description: "The client's IP address; for the command line and a person at the server PC the host name",
  }),
  field.string('request_id', { required: true, nullable: true, description: "The answer's X-Request-Id; null for the command line" }),
  field.jsonObject('detail', {
    required: true,
    nullable: true,
    description:
      'For patient.update, appointment.update and catalog.update `{"changed": [field names, sorted]}` (never values), for setting.update the names of the settings it changed; for patient.search `{"q": text}`; else null',
    schema: {
      type: 'object',
      properties: { changed: { type: 'array', items: { type: 'string' } }, q: { type: ['string', 'null'] } },
      additionalProperties: false,
    },
  }),
  field.string('prev_hash', { required: true, description: "The previous event's hash; 64 zeros for seq 1" }),
  field.string('hash', {
    required: true,
    description: 'Lowercase hex SHA-256 of the canonical JSON of the event without `hash` (keys sorted at every depth, no whitespace)',
  }),
] as const satisfies readonly FieldSpec[];
