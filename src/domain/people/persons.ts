import type { Db } from '../../db/open-database.js';
import {
  anyPersonExists,
  countEnabledAdmins,
  findPersonById,
  findPersonByNameKey,
  insertPerson,
  listPersonRows,
  updatePersonRow,
  type PersonRow,
} from '../../db/persons.js';
import { endSessionsOfPerson } from '../../db/sessions.js';
import { errors, type ValidationIssue } from '../../errors.js';
import { field } from '../../fields/field-spec.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { newId, nowIso } from '../clock.js';
import { blankNameIssues } from '../validation/blank-name.js';
import { defineUseCase } from '../use-case.js';
import { commaListIssues, commaListOf } from '../validation/comma-list.js';
import { hashOneTimeCode, newOneTimeCode } from './one-time-codes.js';
import { orderedRoles, ROLE_ROWS, ROLES, type Role } from './roles.js';

/**
 * The clinic's people (interface 1.3.0, "Persons"): `clinic staff add|list|disable|enable|
 * set-roles|reset-pin`. A person is never deleted, only disabled; the last enabled admin stays.
 */

/** How long a setup code is valid: a day. */
const SETUP_CODE_MS = 24 * 60 * 60 * 1000;

/** A person as `staff … --json` shows it. */
export interface Person {
  id: string;
  name: string;
  roles: Role[];
  enabled: boolean;
  pin_set: boolean;
  locked_until: string | null;
  last_login_at: string | null;
  created_at: string;
}

/** A person with the setup code `add` and `reset-pin` print once. */
export interface PersonWithCode extends Person {
  setup_code: string;
  setup_code_expires_at: string;
}

/** The stored roles as their list. */
export const rolesOf = (row: Pick<PersonRow, 'roles'>): Role[] => orderedRoles(row.roles.split(' '));

/** Whether a person's lock still holds at `now`. */
export const isLocked = (row: Pick<PersonRow, 'locked_until'>, now: string): boolean => row.locked_until !== null && row.locked_until > now;

/** A stored person as shown; a lock that has run out is shown as none. */
export function presentPerson(row: PersonRow, now = nowIso()): Person {
  return {
    id: row.id,
    name: row.name,
    roles: rolesOf(row),
    enabled: row.enabled === 1,
    pin_set: row.pin_hash !== null,
    locked_until: isLocked(row, now) ? row.locked_until : null,
    last_login_at: row.last_login_at,
    created_at: row.created_at,
  };
}

/** Whether the clinic has people: from the first on, the desk needs a login (interface 1.3.0). */
export function clinicHasPersons(db: Db): boolean {
  return anyPersonExists(db);
}

/** Whether no enabled admin has a PIN and is free of a lock: then the database's owner may reset a PIN without logging in. */
export function noAdminCanLogIn(db: Db, now = nowIso()): boolean {
  return !listPersonRows(db).some(
    (person) => person.enabled === 1 && rolesOf(person).includes('admin') && person.pin_hash !== null && !isLocked(person, now),
  );
}

/** The key a name is unique by: the name in any case. */
export const nameKeyOf = (name: string) => name.trim().toLowerCase();

/** The person a desk reference names (the name in any case, or the id), or undefined. */
export function findPerson(db: Db, reference: string): PersonRow | undefined {
  return findPersonByNameKey(db, nameKeyOf(reference)) ?? findPersonById(db, reference.trim().toLowerCase());
}

/** The person `reference` names: 404 PERSON_NOT_FOUND when none. */
export function requirePerson(db: Db, reference: string): PersonRow {
  const row = findPerson(db, reference);
  if (row === undefined) throw errors.personNotFound(reference);
  return row;
}

const NAME_FIELD = field.string('name', {
  required: true,
  minLength: 1,
  maxLength: 100,
  description: "the person's name, unique in any case",
});
const ROLES_FIELD = field.string('roles', { required: true, description: `comma-separated: ${ROLES.join(', ')}` });
const PERSON_PATH_FIELDS = [field.string('person', { required: true, minLength: 1, description: "the person's name or id" })] as const;

/** The issues of a `roles` list (commaListIssues): an unknown role at its place, or none named. */
const roleIssues = (body: unknown, fieldIssues: readonly ValidationIssue[]) =>
  commaListIssues(body, fieldIssues, { field: 'roles', allowed: ROLES, none: 'a person needs at least one role' });

/** A fresh setup code for `row`: the code as shown, its hash and end stored on the row. */
function withSetupCode(row: PersonRow, now: number): { row: PersonRow; code: string; expiresAt: string } {
  const code = newOneTimeCode();
  const expiresAt = new Date(now + SETUP_CODE_MS).toISOString();
  return { row: { ...row, setup_code_hash: hashOneTimeCode(code), setup_code_expires_at: expiresAt }, code, expiresAt };
}

const personRecord = (id: string, action: 'person.create' | 'person.update', changed?: string[]): AuditRecord => ({
  action,
  patientId: null,
  subjectId: id,
  detail: changed === undefined ? null : { changed },
});

/** `clinic staff add`: a person and the setup code they set their PIN with; the first must be an admin. */
export const ADD_PERSON = defineUseCase({
  summary: 'Add a person with their roles; prints the setup code they set their PIN with, once',
  roles: ROLE_ROWS.administer,
  input: { body: [NAME_FIELD, ROLES_FIELD] },
  refusals: [errors.personNameTaken('Anna'), errors.firstPersonAdmin()],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => [...blankNameIssues(body, fieldIssues), ...roleIssues(body, fieldIssues)],
  run(db, { body }): PersonWithCode {
    const name = body.name.trim();
    const roles = orderedRoles(commaListOf(body.roles) ?? []);
    if (listPersonRows(db).length === 0 && !roles.includes('admin')) throw errors.firstPersonAdmin();
    if (findPersonByNameKey(db, nameKeyOf(name)) !== undefined) throw errors.personNameTaken(name);
    const now = Date.now();
    const created: PersonRow = {
      id: newId(),
      name,
      name_key: nameKeyOf(name),
      roles: roles.join(' '),
      enabled: 1,
      pin_hash: null,
      setup_code_hash: null,
      setup_code_expires_at: null,
      failed_pins: 0,
      locked_until: null,
      last_login_at: null,
      created_at: new Date(now).toISOString(),
    };
    const { row, code, expiresAt } = withSetupCode(created, now);
    insertPerson(db, row);
    return { ...presentPerson(row), setup_code: code, setup_code_expires_at: expiresAt };
  },
  audit: (person) => [personRecord(person.id, 'person.create')],
});

/** `clinic staff list`: every person, in the order added. */
export const LIST_PERSONS = defineUseCase({
  summary: "List the clinic's people, their roles and state",
  roles: ROLE_ROWS.administer,
  input: {},
  refusals: [],
  access: 'read',
  run: (db): Person[] => {
    const now = nowIso();
    return listPersonRows(db).map((row) => presentPerson(row, now));
  },
});

/** 409 LAST_ADMIN when `row` is the last enabled admin and would stop being one. */
function keepAnAdmin(db: Db, row: PersonRow): void {
  if (row.enabled === 1 && rolesOf(row).includes('admin') && countEnabledAdmins(db) <= 1) throw errors.lastAdmin(row.name);
}

/** A person enabled or disabled, and whether that changed anything (a repeat records nothing). */
export interface SwitchedPerson {
  person: Person;
  changed: boolean;
}

/** `clinic staff disable`: the person's next request is refused (PERSON_DISABLED); never the last admin. */
export const DISABLE_PERSON = defineUseCase({
  summary: 'Disable a person: their next request is refused, their record and trail stay',
  roles: ROLE_ROWS.administer,
  input: { path: PERSON_PATH_FIELDS },
  refusals: [errors.personNotFound('Anna'), errors.lastAdmin('Anna')],
  access: 'read-then-write',
  run(db, { path }): SwitchedPerson {
    const row = requirePerson(db, path.person);
    if (row.enabled === 0) return { person: presentPerson(row), changed: false };
    keepAnAdmin(db, row);
    const disabled: PersonRow = { ...row, enabled: 0 };
    updatePersonRow(db, disabled);
    return { person: presentPerson(disabled), changed: true };
  },
  audit: ({ person, changed }) => (changed ? [personRecord(person.id, 'person.update', ['enabled'])] : []),
});

/** `clinic staff enable`: enabled again, and unlocked. */
export const ENABLE_PERSON = defineUseCase({
  summary: 'Enable a person again; also ends a lock after wrong PINs',
  roles: ROLE_ROWS.administer,
  input: { path: PERSON_PATH_FIELDS },
  refusals: [errors.personNotFound('Anna')],
  access: 'read-then-write',
  run(db, { path }): SwitchedPerson {
    const row = requirePerson(db, path.person);
    const enabled: PersonRow = { ...row, enabled: 1, failed_pins: 0, locked_until: null };
    updatePersonRow(db, enabled);
    // Unlocking is a change too (recorded as `enabled`: the person may log in again).
    return { person: presentPerson(enabled), changed: row.enabled === 0 || row.locked_until !== null || row.failed_pins > 0 };
  },
  audit: ({ person, changed }) => (changed ? [personRecord(person.id, 'person.update', ['enabled'])] : []),
});

/** `clinic staff set-roles`: the person's roles replaced; the last enabled admin keeps `admin`. */
export const SET_PERSON_ROLES = defineUseCase({
  summary: "Replace a person's roles",
  roles: ROLE_ROWS.administer,
  input: { path: PERSON_PATH_FIELDS, body: [ROLES_FIELD] },
  refusals: [errors.personNotFound('Anna'), errors.lastAdmin('Anna')],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => roleIssues(body, fieldIssues),
  run(db, { path, body }): Person {
    const row = requirePerson(db, path.person);
    const roles = orderedRoles(commaListOf(body.roles) ?? []);
    if (!roles.includes('admin')) keepAnAdmin(db, row);
    const changed: PersonRow = { ...row, roles: roles.join(' ') };
    updatePersonRow(db, changed);
    return presentPerson(changed);
  },
  audit: (person) => [personRecord(person.id, 'person.update', ['roles'])],
});

/** `clinic staff reset-pin`: the PIN void, the person's sessions ended, a new setup code. */
export const RESET_PERSON_PIN = defineUseCase({
  summary: "Void a person's PIN, end their sessions and give a new setup code",
  roles: ROLE_ROWS.administer,
  input: { path: PERSON_PATH_FIELDS },
  refusals: [errors.personNotFound('Anna')],
  access: 'read-then-write',
  run(db, { path }): PersonWithCode {
    const row = requirePerson(db, path.person);
    const now = Date.now();
    // The count of wrong PINs was about the PIN now void: the new one starts afresh.
    const { row: reset, code, expiresAt } = withSetupCode({ ...row, pin_hash: null, failed_pins: 0, locked_until: null }, now);
    updatePersonRow(db, reset);
    endSessionsOfPerson(db, row.id, new Date(now).toISOString(), 'pin_reset');
    return { ...presentPerson(reset), setup_code: code, setup_code_expires_at: expiresAt };
  },
  audit: (person) => [personRecord(person.id, 'person.update', ['pin'])],
});
