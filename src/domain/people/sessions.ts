import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/open-database.js';
import { findPersonById, updatePersonRow, type PersonRow } from '../../db/persons.js';
import type { DeviceRow } from '../../db/devices.js';
import {
  endSessionRow,
  findSessionByTokenHash,
  insertSession,
  openSessionsOfDevice,
  touchSession,
  type SessionRow,
} from '../../db/sessions.js';
import { errors } from '../../errors.js';
import type { Actor, AuditRecord } from '../audit/audit-event.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { newId, nowIso } from '../clock.js';
import { clinicTimeZone } from '../settings.js';
import { inTransaction } from '../use-case.js';
import { hashOneTimeCode, readOneTimeCode } from './one-time-codes.js';
import { findPerson, isLocked, rolesOf } from './persons.js';
import { hashPin, pinFault, pinMatches } from './pin.js';
import type { Role } from './roles.js';

/**
 * Sessions (interface 1.3.0, "Sessions"): a person logs in with their PIN and is named by every
 * audit event until the session ends: 30 minutes after its last use, 12 hours after the login, on
 * logout, on a reset of the PIN, or when the same OS user logs in again on the PC. Five wrong PINs
 * in a row lock the person for 15 minutes, on every PC.
 */

export const IDLE_MS = 30 * 60 * 1000;
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const LOCK_MS = 15 * 60 * 1000;
export const WRONG_PINS_ALLOWED = 5;
const TOKEN_PREFIX = 'cls_';

/** A session as GET /sessions/current and `clinic whoami --json` give it. */
export interface Session {
  id: string;
  person_id: string;
  person_name: string;
  roles: Role[];
  device_id: string | null;
  device_name: string | null;
  created_at: string;
  last_used_at: string;
  idle_expires_at: string;
  expires_at: string;
}

/** A session in use: its row, its person's, and the desk PC it was made through (none on the server PC). */
export interface OpenSession {
  session: SessionRow;
  person: PersonRow;
  device?: Pick<DeviceRow, 'id' | 'name'>;
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The session as shown. */
export function presentSession({ session, person, device }: OpenSession): Session {
  return {
    id: session.id,
    person_id: person.id,
    person_name: person.name,
    roles: rolesOf(person),
    device_id: session.device_id,
    device_name: device?.name ?? null,
    created_at: session.created_at,
    last_used_at: session.last_used_at,
    // The idle end, unless the absolute one comes first.
    idle_expires_at: [plus(session.last_used_at, IDLE_MS), session.expires_at].sort()[0]!,
    expires_at: session.expires_at,
  };
}

/** Who a session's person is in the audit trail: on the server PC, from its host name. */
export function personActor(person: Pick<PersonRow, 'id' | 'name'>, source: string, requestId: string | null = null): Actor {
  return { type: 'person', id: person.id, name: person.name, source, requestId };
}

/** What a login asks: the person, their PIN (or, setting a new PIN, their setup code), and maybe a new PIN. */
export interface LoginRequest {
  person: string;
  pin: string;
  newPin?: string;
  /** The session this OS user had on this PC: it ends (`replaced`). */
  replacing?: string;
}

/**
 * Where a login is made: the PC's actor for failures (the OS user at the server PC, the device at
 * a desk PC) and the source a person's events name; at a desk PC, its device, whose other open
 * sessions the login replaces (a device is one OS user at one PC).
 */
export interface LoginPlace {
  deviceActor: Actor;
  source: string;
  device?: Pick<DeviceRow, 'id' | 'name'>;
}

/** A session begun: what is shown, and the token, given once. */
export interface LoggedIn {
  session: Session;
  token: string;
}

const failRecord = (person: PersonRow | undefined): AuditRecord => ({
  action: 'session.fail',
  patientId: null,
  subjectId: person?.id ?? null,
});

/** The clinic-time clock time of `iso`, as a lock's end is told to a person. */
function clinicClock(db: Db, iso: string): string {
  const timeZone = clinicTimeZone(db);
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));
  return `${text.replace(',', '')} (${timeZone})`;
}

/**
 * Logs a person in (`clinic login`, `staff set-pin`, POST /sessions): the PIN checked against its
 * slow hash outside any transaction (it takes a tenth of a second), then, in one transaction, the
 * outcome stored: a new session, or a wrong PIN counted (the fifth locks the person) and recorded.
 * A refusal is thrown only once its count and events are committed.
 */
export function logIn(db: Db, request: LoginRequest, place: LoginPlace): LoggedIn {
  const person = findPerson(db, request.person);
  const now = nowIso();
  if (person === undefined) {
    inTransaction(db, 'read-then-write', () => appendAuditEvents(db, place.deviceActor, [failRecord(undefined)]));
    throw errors.loginFailed('unknown_person');
  }
  if (person.enabled === 0) throw errors.personDisabled();
  if (isLocked(person, now)) throw locked(db, person.locked_until!);
  const setting = request.newPin !== undefined;
  const byCode = setting && person.setup_code_hash !== null && readOneTimeCode(request.pin) !== null;
  const right = byCode
    ? person.setup_code_expires_at !== null && person.setup_code_expires_at > now && hashOneTimeCode(request.pin) === person.setup_code_hash
    : person.pin_hash !== null && pinMatches(request.pin, person.pin_hash);
  if (!right && !byCode && person.pin_hash === null) {
    if (!setting) throw errors.pinNotSet();
    // Setting a first PIN with something that is no setup code at all: a wrong code, recorded.
    return refuse(db, person, true, place);
  }
  if (!right) return refuse(db, person, byCode, place);
  if (setting) {
    const fault = pinFault(request.newPin!);
    if (fault !== null) throw errors.pinInvalid(fault);
  }
  const newPinHash = setting ? hashPin(request.newPin!) : undefined;
  return inTransaction(db, 'read-then-write', () => {
    const current = findPersonById(db, person.id)!;
    if (current.enabled === 0) throw errors.personDisabled();
    // What was checked outside the transaction still holds: another PC's fifth wrong PIN did not
    // lock the person meanwhile, and no reset-pin or other set-pin replaced the PIN or used the code.
    if (isLocked(current, now)) throw locked(db, current.locked_until!);
    if (current.pin_hash !== person.pin_hash || current.setup_code_hash !== person.setup_code_hash) {
      throw byCode ? errors.loginFailed('wrong_code') : errors.loginFailed('wrong_pin', WRONG_PINS_ALLOWED - current.failed_pins);
    }
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const loggedIn: PersonRow = {
      ...current,
      failed_pins: 0,
      locked_until: null,
      last_login_at: now,
      ...(newPinHash === undefined ? {} : { pin_hash: newPinHash, setup_code_hash: null, setup_code_expires_at: null }),
    };
    updatePersonRow(db, loggedIn);
    const actor = personActor(loggedIn, place.source);
    if (request.replacing !== undefined) endByToken(db, request.replacing, now, 'replaced', place.source);
    if (place.device !== undefined)
      for (const open of openSessionsOfDevice(db, place.device.id)) endSession(db, open, now, 'replaced', place.source);
    const session: SessionRow = {
      id: newId(),
      token_hash: tokenHash(token),
      person_id: person.id,
      device_id: place.device?.id ?? null,
      created_at: now,
      last_used_at: now,
      expires_at: plus(now, ABSOLUTE_MS),
      ended_at: null,
      end_reason: null,
    };
    insertSession(db, session);
    appendAuditEvents(db, actor, [
      ...(newPinHash === undefined
        ? []
        : [{ action: 'person.update' as const, patientId: null, subjectId: person.id, detail: { changed: ['pin'] } }]),
      { action: 'session.create', patientId: null, subjectId: session.id },
    ]);
    return {
      session: presentSession({ session, person: loggedIn, ...(place.device === undefined ? {} : { device: place.device }) }),
      token,
    };
  });
}

/** A wrong PIN or code: counted (a wrong setup code is not: it locks no one out of their PIN) and recorded, the fifth PIN locking the person. */
function refuse(db: Db, person: PersonRow, byCode: boolean, place: LoginPlace): never {
  const outcome = inTransaction(db, 'read-then-write', () => {
    const current = findPersonById(db, person.id)!;
    const now = nowIso();
    // Another attempt locked the person while this PIN was being checked: the lock stands.
    if (isLocked(current, now)) {
      appendAuditEvents(db, place.deviceActor, [failRecord(current)]);
      return { failed: WRONG_PINS_ALLOWED, lockedUntil: current.locked_until };
    }
    // A lock that ran out ended the count with it.
    const before = current.locked_until !== null && current.locked_until <= now ? 0 : current.failed_pins;
    const failed = byCode ? before : before + 1;
    const lockedUntil = failed >= WRONG_PINS_ALLOWED ? plus(now, LOCK_MS) : null;
    updatePersonRow(db, { ...current, failed_pins: lockedUntil === null ? failed : 0, locked_until: lockedUntil });
    appendAuditEvents(db, place.deviceActor, [
      failRecord(current),
      ...(lockedUntil === null ? [] : [{ action: 'person.lock' as const, patientId: null, subjectId: current.id }]),
    ]);
    return { failed, lockedUntil };
  });
  if (byCode) throw errors.loginFailed('wrong_code');
  if (outcome.lockedUntil !== null) throw locked(db, outcome.lockedUntil);
  throw errors.loginFailed('wrong_pin', WRONG_PINS_ALLOWED - outcome.failed);
}

function locked(db: Db, until: string) {
  return errors.personLocked(until, Date.parse(until) - Date.now(), clinicClock(db, until));
}

/** Why a stored session no longer serves at `now`, or null while it does. */
function endOf(session: SessionRow, now: string): 'idle' | 'expired' | SessionRow['end_reason'] {
  if (session.ended_at !== null) return session.end_reason;
  if (now >= session.expires_at) return 'expired';
  if (now >= plus(session.last_used_at, IDLE_MS)) return 'idle';
  return null;
}

/**
 * The open session of `token`, used now (its idle end moves on unless `touch` is false: whoami and
 * GET /sessions/current look without using it; the server moves it through its commit groups,
 * markSessionUsed). Undefined for a token no session has; 401 SESSION_ENDED for an ended one,
 * PERSON_DISABLED for a disabled person.
 */
export function useSession(db: Db, token: string, { touch = true }: { touch?: boolean } = {}): OpenSession | undefined {
  const session = findSessionByTokenHash(db, tokenHash(token));
  if (session === undefined) return undefined;
  const now = nowIso();
  const ended = endOf(session, now);
  if (ended !== null) throw errors.sessionEnded(ended!);
  const person = findPersonById(db, session.person_id)!;
  if (person.enabled === 0) throw errors.personDisabled();
  if (!touch) return { session, person };
  inTransaction(db, 'write', () => touchSession(db, session.id, now));
  return { session: { ...session, last_used_at: now }, person };
}

/**
 * Moves a session's idle end on to now, unless it was used within the last second (a burst of
 * requests writes once; a second is nothing against 30 minutes); the work to run, or null when none.
 */
export function markSessionUsed(db: Db, open: OpenSession): (() => void) | null {
  const now = nowIso();
  if (Date.parse(now) - Date.parse(open.session.last_used_at) < 1000) return null;
  open.session = { ...open.session, last_used_at: now };
  return () => touchSession(db, open.session.id, now);
}

/** Ends the session of `token` (logout, or replaced by a new login), recording `session.end`; whether one was open. */
function endByToken(db: Db, token: string, now: string, reason: 'logged_out' | 'replaced', source: string): boolean {
  const session = findSessionByTokenHash(db, tokenHash(token));
  return session !== undefined && endSession(db, session, now, reason, source);
}

/** Ends `session` unless it has ended, recording `session.end` by its person; whether it was open. */
function endSession(db: Db, session: SessionRow, now: string, reason: 'logged_out' | 'replaced', source: string): boolean {
  if (endOf(session, now) !== null) return false;
  if (!endSessionRow(db, session.id, now, reason)) return false;
  const person = findPersonById(db, session.person_id)!;
  appendAuditEvents(db, personActor(person, source), [{ action: 'session.end', patientId: null, subjectId: session.id }]);
  return true;
}

/** `clinic logout`, DELETE /sessions/current: the session of `token` ended; whether one was open. */
export function logOut(db: Db, token: string, source: string): boolean {
  return inTransaction(db, 'read-then-write', () => endByToken(db, token, nowIso(), 'logged_out', source));
}
