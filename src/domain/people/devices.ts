import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/open-database.js';
import {
  deviceNameKeys,
  findDeviceByCodeHash,
  findDeviceByNameKey,
  findDeviceByTokenHash,
  findDeviceById,
  insertDevice,
  listDeviceRows,
  markDeviceSeen,
  updateDeviceRow,
  type DeviceRow,
} from '../../db/devices.js';
import { endSessionsOfDevice } from '../../db/sessions.js';
import { errors } from '../../errors.js';
import { field } from '../../fields/field-spec.js';
import type { Actor, AuditRecord } from '../audit/audit-event.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { newId, nowIso } from '../clock.js';
import { blankNameIssues } from '../validation/blank-name.js';
import { defineUseCase, inTransaction } from '../use-case.js';
import { hashOneTimeCode, newOneTimeCode, readOneTimeCode } from './one-time-codes.js';
import { clinicHasPersons } from './persons.js';
import { ROLE_ROWS } from './roles.js';

/**
 * The clinic's desk PCs (interface 1.3.0, "Pairing"): `desk pair` on the server PC makes a device
 * with a code valid 10 minutes, once; `desk join` on the new PC trades it (POST /desk/join) for the
 * device's token, which goes as `Clinic-Device` with every request it makes; `desk revoke` ends
 * the device and its sessions at once.
 */

/** How long a pairing code is valid. */
export const PAIRING_CODE_MS = 10 * 60 * 1000;
const TOKEN_PREFIX = 'cld_';

/** A device as `desk list --json` shows it. */
export interface Device {
  id: string;
  name: string;
  state: 'pending' | 'expired' | 'joined' | 'revoked';
  created_at: string;
  code_expires_at: string | null;
  joined_at: string | null;
  revoked_at: string | null;
  host_name: string | null;
  last_seen_at: string | null;
  last_address: string | null;
  desk_version: string | null;
}

/** A device paired: it and the code to type on the new PC, shown once. */
export interface PairedDevice {
  device: Device;
  code: string;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest();
const nameKeyOf = (name: string) => name.trim().toLowerCase();

/** A device's state at `now`. */
export function deviceState(row: DeviceRow, now: string): Device['state'] {
  if (row.revoked_at !== null) return 'revoked';
  if (row.joined_at !== null) return 'joined';
  return row.code_expires_at !== null && row.code_expires_at > now ? 'pending' : 'expired';
}

/** A stored device as shown. */
export function presentDevice(row: DeviceRow, now = nowIso()): Device {
  const state = deviceState(row, now);
  return {
    id: row.id,
    name: row.name,
    state,
    created_at: row.created_at,
    code_expires_at: row.joined_at === null ? row.code_expires_at : null,
    joined_at: row.joined_at,
    revoked_at: row.revoked_at,
    host_name: row.host_name,
    last_seen_at: row.last_seen_at,
    last_address: row.last_address,
    desk_version: row.desk_version,
  };
}

/** How a device acts in the audit trail (its join, a failed login on it): by its id and name, from its address. */
export function deviceActor(row: Pick<DeviceRow, 'id' | 'name'>, address: string, requestId: string | null = null): Actor {
  return { type: 'device', id: row.id, name: row.name, source: `${row.name} (${address})`, requestId };
}

/** The smallest free `Desk N`. */
function defaultName(db: Db): string {
  const taken = deviceNameKeys(db);
  for (let n = 1; ; n++) if (!taken.has(`desk ${n}`)) return `Desk ${n}`;
}

const deviceRecord = (id: string, action: 'device.pair' | 'device.revoke' | 'device.join'): AuditRecord => ({
  action,
  patientId: null,
  subjectId: id,
});

/**
 * `clinic desk pair`: a new device, pending, with a code valid 10 minutes; a pending (or expired)
 * device of the same name gets a new code, its old one no longer works. A name joined or revoked
 * is taken (409 DEVICE_NAME_TAKEN): the trail names that PC by it.
 */
export const PAIR_DEVICE = defineUseCase({
  summary: 'Pair a new desk PC: a code, valid 10 minutes and once, to type there with clinic desk join',
  roles: ROLE_ROWS.administer,
  input: {
    body: [field.string('name', { minLength: 1, maxLength: 64, description: 'the desk PC\'s name, unique in any case; default "Desk N"' })],
  },
  refusals: [errors.deviceNameTaken('Reception 2'), errors.staffRequired()],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => blankNameIssues(body, fieldIssues),
  run(db, { body }): PairedDevice {
    // A desk PC's commands run as a person: without persons no one could use it.
    if (!clinicHasPersons(db)) throw errors.staffRequired();
    const name = body.name?.trim() ?? defaultName(db);
    const now = Date.now();
    const code = newOneTimeCode();
    const fresh = { code_hash: hashOneTimeCode(code), code_expires_at: new Date(now + PAIRING_CODE_MS).toISOString() };
    const existing = findDeviceByNameKey(db, nameKeyOf(name));
    if (existing !== undefined) {
      if (existing.joined_at !== null || existing.revoked_at !== null) throw errors.deviceNameTaken(existing.name);
      const again = { ...existing, ...fresh };
      updateDeviceRow(db, again);
      return { device: presentDevice(again), code };
    }
    const row: DeviceRow = {
      id: newId(),
      name,
      name_key: nameKeyOf(name),
      ...fresh,
      token_hash: null,
      created_at: new Date(now).toISOString(),
      joined_at: null,
      revoked_at: null,
      host_name: null,
      last_seen_at: null,
      last_address: null,
      desk_version: null,
    };
    insertDevice(db, row);
    return { device: presentDevice(row), code };
  },
  audit: ({ device }) => [deviceRecord(device.id, 'device.pair')],
});

/** `clinic desk list`: every device, in the order paired. */
export const LIST_DEVICES = defineUseCase({
  summary: "List the clinic's desk PCs and their state",
  roles: ROLE_ROWS.administer,
  input: {},
  refusals: [],
  access: 'read',
  run: (db): Device[] => {
    const now = nowIso();
    return listDeviceRows(db).map((row) => presentDevice(row, now));
  },
});

/** The device `reference` names (its name in any case, or its id): 404 DEVICE_NOT_FOUND when none. */
function requireDevice(db: Db, reference: string): DeviceRow {
  const row = findDeviceByNameKey(db, nameKeyOf(reference)) ?? findDeviceById(db, reference.trim().toLowerCase());
  if (row === undefined) throw errors.deviceNotFound(reference);
  return row;
}

/** A device revoked, and whether that changed anything (a repeat records nothing). */
export interface RevokedDevice {
  device: Device;
  changed: boolean;
}

/** `clinic desk revoke`: at once, a running server included: its sessions end, its next request is 401 DEVICE_REVOKED. */
export const REVOKE_DEVICE = defineUseCase({
  summary: 'Revoke a desk PC: its sessions end and its next request is refused',
  roles: ROLE_ROWS.administer,
  input: { path: [field.string('device', { required: true, minLength: 1, description: "the desk PC's name or id" })] },
  refusals: [errors.deviceNotFound('Reception 2')],
  access: 'read-then-write',
  run(db, { path }): RevokedDevice {
    const row = requireDevice(db, path.device);
    if (row.revoked_at !== null) return { device: presentDevice(row), changed: false };
    const now = nowIso();
    const revoked: DeviceRow = { ...row, revoked_at: now, code_hash: null, code_expires_at: null };
    updateDeviceRow(db, revoked);
    endSessionsOfDevice(db, row.id, now, 'device_revoked');
    return { device: presentDevice(revoked, now), changed: true };
  },
  audit: ({ device, changed }) => (changed ? [deviceRecord(device.id, 'device.revoke')] : []),
});

/** What POST /desk/join answers: the device and its token, given once. */
export interface JoinedDevice {
  device_id: string;
  device_name: string;
  device_token: string;
}

/**
 * POST /desk/join: a pending device's code traded for its token (the code then stops working),
 * the PC's host name kept, `device.join` recorded by the device. A wrong, used or expired code:
 * 401 PAIRING_CODE_INVALID.
 */
export function joinDevice(db: Db, join: { code: string; hostName: string; address: string; version: string | null }): JoinedDevice {
  if (readOneTimeCode(join.code) === null) throw errors.pairingCodeInvalid();
  const codeHash = hashOneTimeCode(join.code);
  return inTransaction(db, 'read-then-write', () => {
    const row = findDeviceByCodeHash(db, codeHash);
    const now = nowIso();
    if (row === undefined || deviceState(row, now) !== 'pending') throw errors.pairingCodeInvalid();
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const joined: DeviceRow = {
      ...row,
      code_hash: null,
      code_expires_at: null,
      token_hash: tokenHash(token).toString('hex'),
      joined_at: now,
      host_name: join.hostName,
      last_seen_at: now,
      last_address: join.address,
      desk_version: join.version,
    };
    updateDeviceRow(db, joined);
    appendAuditEvents(db, deviceActor(joined, join.address), [deviceRecord(row.id, 'device.join')]);
    return { device_id: row.id, device_name: row.name, device_token: token };
  });
}

/**
 * The joined device a `Clinic-Device` header names: 401 DEVICE_UNKNOWN for none or a token no
 * device has, DEVICE_REVOKED for a revoked one.
 */
export function authenticateDevice(db: Db, header: string | undefined): DeviceRow {
  const token = header?.trim() ?? '';
  if (!token.startsWith(TOKEN_PREFIX)) throw errors.deviceUnknown();
  const presented = tokenHash(token);
  const row = findDeviceByTokenHash(db, presented.toString('hex'));
  if (row === undefined || row.token_hash === null || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), presented))
    throw errors.deviceUnknown();
  if (row.revoked_at !== null) throw errors.deviceRevoked(row.name);
  return row;
}

/** How often a device's last sighting is written: a minute is what `desk list` needs, and it saves a write per request. */
const SEEN_EVERY_MS = 60 * 1000;

/**
 * The write that notes `row` seen now from `address`, or null when none is due: at most once a
 * minute, unless its address or version changed. The server runs it with the request's own writes.
 */
export function noteDeviceSeen(db: Db, row: DeviceRow, address: string, version: string | null): (() => void) | null {
  const now = nowIso();
  const fresh = row.last_seen_at !== null && Date.parse(now) - Date.parse(row.last_seen_at) < SEEN_EVERY_MS;
  if (fresh && row.last_address === address && (version === null || row.desk_version === version)) return null;
  return () => markDeviceSeen(db, row.id, now, address, version);
}
