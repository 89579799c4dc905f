/**
 * How schema 7 stores the fields of an audit event (schema.sql, "The audit trail"), and how they
 * read back exactly as interface 1.2.0 shows them, so that every hash still covers the same
 * text. A value is stored in its short form only when it reads back unchanged; anything else (a
 * row someone altered before migration 7 converted it) is kept as it was, as text, so that the
 * trail verifies, or fails, exactly as before. The view `audit_events` decodes the same way in
 * SQL; test/db/audit-codec.test.ts holds both to the same rows.
 */

/** The `prev_hash` of the first event. */
export const ZERO_HASH = '0'.repeat(64);

/** A stored `subject_id` that stands for the event's own patient id (a patient's read, create or update). */
export const SAME_AS_PATIENT = 0n;

/** The latest instant whose ISO form has a four-digit year: stored as a number only up to it. */
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX_HASH = /^[0-9a-f]{64}$/;

/**
 * A value as SQLite stores it: an integer, text, bytes (Buffer or Uint8Array, by driver) or null.
 * Integers are written as BigInt: a column of type ANY keeps a number bound as a float a float
 * (better-sqlite3 binds every number so), which would cost 8 bytes and read back as REAL. They
 * read back as numbers.
 */
export type StoredValue = number | bigint | string | Uint8Array | null;

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** `at` (UTC ISO with milliseconds, as nowIso writes it) as milliseconds since 1970 (6 bytes instead of 24); any other text as it is. */
export function encodeAt(at: string): bigint | string {
  const ms = Date.parse(at);
  return Number.isInteger(ms) && ms >= 0 && ms <= LATEST_MS && new Date(ms).toISOString() === at ? BigInt(ms) : at;
}

/** A stored `at` as the event shows it. */
export function decodeAt(stored: StoredValue): string {
  return typeof stored === 'number' || typeof stored === 'bigint' ? new Date(Number(stored)).toISOString() : String(stored);
}

/**
 * A stored `at` as a time to order by (milliseconds): text that is no date orders before every
 * date. The clock steps of the trail (audit_clock_steps) and its windows are found with this one
 * order, so they agree whatever a row holds.
 */
export function timeOf(stored: StoredValue): number {
  if (typeof stored === 'number' || typeof stored === 'bigint') return Number(stored);
  const ms = Date.parse(String(stored));
  return Number.isNaN(ms) ? -Infinity : ms;
}

/** A hash (64 lowercase hex digits) as its 32 bytes; any other text as it is. */
export function encodeHash(hash: string): Uint8Array | string {
  return HEX_HASH.test(hash) ? Buffer.from(hash, 'hex') : hash;
}

/** A stored hash as the event shows it. */
export function decodeHash(stored: StoredValue): string {
  return stored instanceof Uint8Array ? hexOf(stored) : String(stored);
}

/**
 * `subject_id`: null stays null, the event's own patient id is SAME_AS_PATIENT (no bytes at all:
 * SQLite stores 0 in the row's header), a lowercase UUID its 16 bytes, anything else as text.
 */
export function encodeSubject(subjectId: string | null, patientId: string | null): StoredValue {
  if (subjectId === null) return null;
  if (subjectId === patientId) return SAME_AS_PATIENT;
  return UUID.test(subjectId) ? Buffer.from(subjectId.replace(/-/g, ''), 'hex') : subjectId;
}

/** A stored `subject_id` as the event shows it, `patientId` being the event's patient. */
export function decodeSubject(stored: StoredValue, patientId: string | null): string | null {
  if (stored === null) return null;
  if (typeof stored === 'number' || typeof stored === 'bigint') return patientId;
  if (!(stored instanceof Uint8Array)) return stored;
  const hex = hexOf(stored);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
