import { preparedFor, type Db } from './open-database.js';

/** Why a session was ended before its time (schema.sql, `sessions.end_reason`). */
export type SessionEndReason = 'logged_out' | 'replaced' | 'pin_reset' | 'device_revoked';

/** A session as stored, with its person's name, roles and state. */
export interface SessionRow {
  id: string;
  token_hash: string;
  person_id: string;
  device_id: string | null;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: SessionEndReason | null;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<SessionRow>(
    `INSERT INTO sessions (id, token_hash, person_id, device_id, created_at, last_used_at, expires_at, ended_at, end_reason)
     VALUES (@id, @token_hash, @person_id, @device_id, @created_at, @last_used_at, @expires_at, @ended_at, @end_reason)`,
  ),
  byTokenHash: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE token_hash = ?'),
  touch: db.prepare<[string, string]>('UPDATE sessions SET last_used_at = ? WHERE id = ?'),
  end: db.prepare<{ id: string; at: string; reason: SessionEndReason }>(
    'UPDATE sessions SET ended_at = @at, end_reason = @reason WHERE id = @id AND ended_at IS NULL',
  ),
  endOfPerson: db.prepare<{ person_id: string; at: string; reason: SessionEndReason }>(
    'UPDATE sessions SET ended_at = @at, end_reason = @reason WHERE person_id = @person_id AND ended_at IS NULL',
  ),
  endOfDevice: db.prepare<{ device_id: string; at: string; reason: SessionEndReason }>(
    'UPDATE sessions SET ended_at = @at, end_reason = @reason WHERE device_id = @device_id AND ended_at IS NULL',
  ),
  openOfDevice: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE device_id = ? AND ended_at IS NULL'),
  forgetAll: db.prepare('DELETE FROM sessions'),
}));

/** Forgets every session (a restore: whoever was logged in to the clinic the backup was made of logs in again). */
export function forgetAllSessions(db: Db): number {
  return statements(db).forgetAll.run().changes;
}

/** Stores a new session. */
export function insertSession(db: Db, row: SessionRow): void {
  statements(db).insert.run(row);
}

/** The session whose token has this SHA-256 (hex), ended or not. */
export function findSessionByTokenHash(db: Db, tokenHash: string): SessionRow | undefined {
  return statements(db).byTokenHash.get(tokenHash);
}

/** Marks a session used at `at` (its idle end moves on). */
export function touchSession(db: Db, id: string, at: string): void {
  statements(db).touch.run(at, id);
}

/** Ends one session, unless it ended already; whether it was open. */
export function endSessionRow(db: Db, id: string, at: string, reason: SessionEndReason): boolean {
  return statements(db).end.run({ id, at, reason }).changes > 0;
}

/** Ends every open session of a person (reset-pin); how many. */
export function endSessionsOfPerson(db: Db, personId: string, at: string, reason: SessionEndReason): number {
  return statements(db).endOfPerson.run({ person_id: personId, at, reason }).changes;
}

/** Ends every open session made through a device (its revocation); how many. */
export function endSessionsOfDevice(db: Db, deviceId: string, at: string, reason: SessionEndReason): number {
  return statements(db).endOfDevice.run({ device_id: deviceId, at, reason }).changes;
}

/** The sessions made through a device not yet ended (a new login there replaces them). */
export function openSessionsOfDevice(db: Db, deviceId: string): SessionRow[] {
  return statements(db).openOfDevice.all(deviceId);
}
