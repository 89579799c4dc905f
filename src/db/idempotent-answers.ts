import { preparedFor, type Db } from './open-database.js';

/** An `idempotent_answers` row (schema.sql): the first answer of a POST sent with an Idempotency-Key. */
export interface IdempotentAnswerRow {
  idempotency_key: string;
  operation: string;
  fingerprint: string;
  status: number;
  /** The answer's JSON, as first sent. */
  body: string;
  created_at: string;
  expires_at: string;
}

const COLUMNS = 'idempotency_key, operation, fingerprint, status, body, created_at, expires_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<IdempotentAnswerRow>(
    `INSERT INTO idempotent_answers (${COLUMNS})
     VALUES (@idempotency_key, @operation, @fingerprint, @status, @body, @created_at, @expires_at)`,
  ),
  byKey: db.prepare<[string], IdempotentAnswerRow>(`SELECT ${COLUMNS} FROM idempotent_answers WHERE idempotency_key = ?`),
  // A range of idempotent_answers_by_expiry: the answers whose time is over, however many others are kept.
  removeExpired: db.prepare<[string]>('DELETE FROM idempotent_answers WHERE expires_at <= ?'),
  remove: db.prepare<[string]>('DELETE FROM idempotent_answers WHERE idempotency_key = ?'),
}));

/** The answer stored under this key, expired or not, or undefined. */
export function findIdempotentAnswer(db: Db, key: string): IdempotentAnswerRow | undefined {
  return statements(db).byKey.get(key);
}

/** Stores an answer; the key is the primary key, so a second answer under it is refused. */
export function insertIdempotentAnswer(db: Db, row: IdempotentAnswerRow): void {
  statements(db).insert.run(row);
}

/** Removes every answer whose `expires_at` is `now` or earlier. */
export function removeExpiredAnswers(db: Db, now: string): void {
  statements(db).removeExpired.run(now);
}

/** Removes the answer under this key: what it answered did not last (an upload whose file could not be put in place). */
export function removeIdempotentAnswer(db: Db, key: string): void {
  statements(db).remove.run(key);
}
