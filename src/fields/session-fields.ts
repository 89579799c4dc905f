import { field, type FieldSpec } from './field-spec.js';
import { ROLE_NAMES } from '../role-names.js';

/** POST /sessions (interface 1.3.0, "Sessions"): who logs in, with what. */
export const LOGIN_INPUT_FIELDS = [
  field.string('person', { required: true, minLength: 1, maxLength: 100, description: "the person's name (any case) or id" }),
  field.string('pin', {
    required: true,
    minLength: 1,
    maxLength: 64,
    secret: true,
    description: 'their PIN; with `new_pin`, the PIN or the setup code `clinic staff add` or `reset-pin` printed',
  }),
  field.string('new_pin', {
    minLength: 1,
    maxLength: 64,
    secret: true,
    description: 'a new PIN (6–12 digits, not weak), set before the login',
  }),
] as const satisfies readonly FieldSpec[];

/** A session as GET /sessions/current and `clinic whoami --json` give it. */
export const SESSION_FIELDS = [
  field.uuid('id', { required: true }),
  field.uuid('person_id', { required: true }),
  field.string('person_name', { required: true }),
  field.stringList('roles', { required: true, maxItems: ROLE_NAMES.length, maxItemLength: 20, description: `of ${ROLE_NAMES.join(', ')}` }),
  field.uuid('device_id', { required: true, nullable: true, description: 'the desk PC it was made through; null on the server PC' }),
  field.string('device_name', { required: true, nullable: true }),
  field.datetime('created_at', { required: true }),
  field.datetime('last_used_at', { required: true }),
  field.datetime('idle_expires_at', { required: true, description: '30 minutes after the last request, unless `expires_at` comes first' }),
  field.datetime('expires_at', { required: true, description: '12 hours after the login' }),
] as const satisfies readonly FieldSpec[];

/** POST /sessions' answer: the session and its token, given once. */
export const NEW_SESSION_FIELDS = [
  ...SESSION_FIELDS,
  field.string('token', {
    required: true,
    description: '`cls_…`: sent as `Authorization: Bearer`, always with the `Clinic-Device` it was made through; kept only hashed',
  }),
] as const satisfies readonly FieldSpec[];

/** POST /desk/join: the pairing code `clinic desk pair` printed, and the new PC's name. */
export const DESK_JOIN_FIELDS = [
  field.string('code', {
    required: true,
    minLength: 1,
    maxLength: 64,
    secret: true,
    description: 'the pairing code, `XXXX-XXXX-XXXX`, any case',
  }),
  field.string('host_name', { required: true, minLength: 1, maxLength: 255, description: "the desk PC's host name, for `desk list`" }),
] as const satisfies readonly FieldSpec[];

/** POST /desk/join's answer. */
export const JOINED_DESK_FIELDS = [
  field.uuid('device_id', { required: true }),
  field.string('device_name', { required: true }),
  field.string('device_token', { required: true, description: '`cld_…`: sent as `Clinic-Device` with every request; kept only hashed' }),
  field.string('server_version', { required: true }),
] as const satisfies readonly FieldSpec[];

/** POST /desk/commands: a desk command line, after `clinic`. */
export const DESK_COMMAND_FIELDS = [
  field.stringList('argv', {
    required: true,
    maxItems: 200,
    maxItemLength: 4096,
    description: "the command line after `clinic`, file paths made absolute; read by the server's own version's options",
  }),
] as const satisfies readonly FieldSpec[];

/** POST /desk/commands' answer: what the server printed running the command as the person, from the PC. */
export const DESK_COMMAND_RESULT_FIELDS = [
  field.integer('exit_code', { required: true, minimum: 0, description: '0, or 1 (refused) or 2 (usage), as on the server PC' }),
  field.string('stdout', { required: true }),
  field.string('stderr', { required: true }),
  field.string('download', {
    required: true,
    nullable: true,
    description:
      'for `document save` and `patient export`: the path of the operation that streams the file, which the desk GETs; else null',
  }),
] as const satisfies readonly FieldSpec[];
