import type { Migration } from './migration-step.js';
import type { Db } from './drivers/sqlite-driver.js';
import { encodeAt, encodeHash, encodeSubject, timeOf, ZERO_HASH, type StoredValue } from './audit-codec.js';

/**
 * Version 7 (issue 39): the audit trail stored compactly. 1.2.0 wrote every field of every event
 * into one row, some 470 bytes with its two indexes (a key's search page of 50 patients wrote
 * 23 KB); now what events share is a row of its own and an event keeps its time, references and
 * 32-byte hash (schema.sql, "The audit trail"). Every old event is converted in seq order and
 * keeps its seq and every field exactly as GET /audit-events showed it (the view audit_events
 * reads them back), so every hash still verifies, and a row that did not (someone altered it
 * before) still fails where it failed. Old events are read a slice at a time and the ids made
 * are remembered up to a bound, so memory stays flat: a million events took 34 s, the whole
 * process peaking at 147 MB (bench/audit-trail.ts migrate; docs/benchmarks.md).
 */
export const COMPACT_AUDIT_TRAIL: Migration = {
  version: 7,
  sql: `
    CREATE TABLE audit_actions (
      code         INTEGER PRIMARY KEY,
      action       TEXT NOT NULL,
      subject_type TEXT NOT NULL,
      UNIQUE (action, subject_type)
    ) STRICT;
    CREATE TABLE audit_patients (
      ref            INTEGER PRIMARY KEY,
      patient_id     TEXT,
      patient_number TEXT,
      -- Found by both (an event names the number it was given); "who has seen this patient?" by the id.
      UNIQUE (patient_id, patient_number)
    ) STRICT;
    CREATE TABLE audit_actors (
      ref        INTEGER PRIMARY KEY,
      actor_type TEXT NOT NULL,
      actor_id   TEXT NOT NULL,
      actor_name TEXT NOT NULL,
      source     TEXT NOT NULL,
      UNIQUE (actor_id, actor_type, actor_name, source)
    ) STRICT;
    CREATE TABLE audit_contexts (
      ref        INTEGER PRIMARY KEY,
      actor_ref  INTEGER NOT NULL REFERENCES audit_actors (ref),
      request_id TEXT,
      -- JSON as hashed (canonical: keys sorted), or NULL.
      detail     TEXT
    ) STRICT;
    -- seq is given by the program (the last + 1, in the transaction that also writes what it
    -- records), so it has no gaps. at is milliseconds since 1970; subject_id NULL (none), 0 (the
    -- patient's own id) or a UUID's 16 bytes; hash 32 bytes; prev_hash NULL: the hash of the
    -- event before (64 zeros for the first). A value of another form (text) is one the program did
    -- not write, kept as it was by migration 7.
    CREATE TABLE audit_trail (
      seq         INTEGER PRIMARY KEY CHECK (seq >= 1),
      at          ANY NOT NULL,
      action_code INTEGER NOT NULL REFERENCES audit_actions (code),
      patient_ref INTEGER REFERENCES audit_patients (ref),
      subject_id  ANY,
      context_ref INTEGER NOT NULL REFERENCES audit_contexts (ref),
      hash        ANY NOT NULL,
      prev_hash   ANY
    ) STRICT;
    -- "Who has seen this patient?" (GET /audit-events?patient_id, clinic audit list --patient) and
    -- the actions asked for (?action): each a range of one index, in seq order. A window of time
    -- (from/to) is a range of seq: the trail's times rise with seq except where the clock was set
    -- back, and audit_clock_steps lists those events, so each rising stretch is searched by seq alone.
    CREATE INDEX audit_trail_by_patient ON audit_trail (patient_ref, seq);
    CREATE INDEX audit_trail_by_action ON audit_trail (action_code, seq);
    CREATE TABLE audit_clock_steps (
      seq INTEGER PRIMARY KEY
    ) STRICT;
    CREATE TRIGGER audit_trail_append_only_on_update BEFORE UPDATE ON audit_trail
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be changed');
    END;
    CREATE TRIGGER audit_trail_append_only_on_delete BEFORE DELETE ON audit_trail
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be deleted');
    END;
    CREATE TRIGGER audit_actions_append_only_on_update BEFORE UPDATE ON audit_actions
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its actions cannot be changed');
    END;
    CREATE TRIGGER audit_actions_append_only_on_delete BEFORE DELETE ON audit_actions
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its actions cannot be deleted');
    END;
    CREATE TRIGGER audit_patients_append_only_on_update BEFORE UPDATE ON audit_patients
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: the patients it names cannot be changed');
    END;
    CREATE TRIGGER audit_patients_append_only_on_delete BEFORE DELETE ON audit_patients
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: the patients it names cannot be deleted');
    END;
    CREATE TRIGGER audit_actors_append_only_on_update BEFORE UPDATE ON audit_actors
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its actors cannot be changed');
    END;
    CREATE TRIGGER audit_actors_append_only_on_delete BEFORE DELETE ON audit_actors
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its actors cannot be deleted');
    END;
    CREATE TRIGGER audit_contexts_append_only_on_update BEFORE UPDATE ON audit_contexts
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its contexts cannot be changed');
    END;
    CREATE TRIGGER audit_contexts_append_only_on_delete BEFORE DELETE ON audit_contexts
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its contexts cannot be deleted');
    END;
    CREATE TRIGGER audit_clock_steps_append_only_on_update BEFORE UPDATE ON audit_clock_steps
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its clock steps cannot be changed');
    END;
    CREATE TRIGGER audit_clock_steps_append_only_on_delete BEFORE DELETE ON audit_clock_steps
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: its clock steps cannot be deleted');
    END;
  `,
  fill(db) {
    convertTrail(db);
    db.exec(`
      DROP TABLE audit_events;
        -- The events as interface 1.2.0 shows them (GET /audit-events), for anyone reading the file with
        -- SQL; the program decodes the same way (src/db/audit-codec.ts). Changing an event through it is
        -- refused as changing the trail is.
        CREATE VIEW audit_events AS
        SELECT t.seq AS seq,
               CASE typeof(t.at) WHEN 'integer'
                 THEN strftime('%Y-%m-%dT%H:%M:%S', t.at / 1000, 'unixepoch') || printf('.%03dZ', t.at % 1000) ELSE t.at END AS at,
               a.action AS action,
               p.patient_id AS patient_id,
               p.patient_number AS patient_number,
               a.subject_type AS subject_type,
               CASE typeof(t.subject_id)
                 WHEN 'integer' THEN p.patient_id
                 WHEN 'blob' THEN lower(substr(hex(t.subject_id), 1, 8) || '-' || substr(hex(t.subject_id), 9, 4) || '-' ||
                                        substr(hex(t.subject_id), 13, 4) || '-' || substr(hex(t.subject_id), 17, 4) || '-' ||
                                        substr(hex(t.subject_id), 21, 12))
                 ELSE t.subject_id END AS subject_id,
               r.actor_type AS actor_type,
               r.actor_id AS actor_id,
               r.actor_name AS actor_name,
               r.source AS source,
               c.request_id AS request_id,
               c.detail AS detail,
               coalesce(CASE typeof(t.prev_hash) WHEN 'blob' THEN lower(hex(t.prev_hash)) ELSE t.prev_hash END,
                        (SELECT CASE typeof(h.hash) WHEN 'blob' THEN lower(hex(h.hash)) ELSE h.hash END
                           FROM audit_trail h WHERE h.seq < t.seq ORDER BY h.seq DESC LIMIT 1),
                        '0000000000000000000000000000000000000000000000000000000000000000') AS prev_hash,
               CASE typeof(t.hash) WHEN 'blob' THEN lower(hex(t.hash)) ELSE t.hash END AS hash
          FROM audit_trail t
          JOIN audit_actions a ON a.code = t.action_code
          LEFT JOIN audit_patients p ON p.ref = t.patient_ref
          JOIN audit_contexts c ON c.ref = t.context_ref
          JOIN audit_actors r ON r.ref = c.actor_ref;
        CREATE TRIGGER audit_events_are_append_only_on_update INSTEAD OF UPDATE ON audit_events
        BEGIN
          SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be changed');
        END;
        CREATE TRIGGER audit_events_are_append_only_on_delete INSTEAD OF DELETE ON audit_events
        BEGIN
          SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be deleted');
        END;
    `);
  },
};

/** An event of 1.2.0's audit_events, as it was stored. */
interface OldEventRow {
  seq: number;
  at: string;
  action: string;
  patient_id: string | null;
  patient_number: string | null;
  subject_type: string;
  subject_id: string | null;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  detail: string | null;
  prev_hash: string;
  hash: string;
}

/** Old events read per query: the conversion never holds more than this many rows at once. */
const SLICE = 5000;
/** The most ids kept in memory per kind while converting (then forgotten, and looked up again). */
const MOST_REMEMBERED = 50_000;

/** A small map of what was made, forgotten whole when full: lookups fall back to the database. */
class Remembered<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= MOST_REMEMBERED) this.map.clear();
    this.map.set(key, value);
  }
}

/**
 * Moves every event of audit_events into the new tables, in seq order. Consecutive events of one
 * request (the same actor, source, request id and detail: a search page) share one context.
 * Its own statements, not src/db's: this step must keep doing what it did when it shipped.
 */
function convertTrail(db: Db): void {
  const read = db.prepare<[number, number], OldEventRow>(
    `SELECT seq, at, action, patient_id, patient_number, subject_type, subject_id, actor_type, actor_id, actor_name,
            source, request_id, detail, prev_hash, hash
       FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  const findAction = db.prepare<[string, string], { code: number }>('SELECT code FROM audit_actions WHERE action = ? AND subject_type = ?');
  const addAction = db.prepare<[string, string]>('INSERT INTO audit_actions (action, subject_type) VALUES (?, ?)');
  const findPatient = db.prepare<[string | null, string | null], { ref: number }>(
    'SELECT ref FROM audit_patients WHERE patient_id IS ? AND patient_number IS ?',
  );
  const addPatient = db.prepare<[string | null, string | null]>('INSERT INTO audit_patients (patient_id, patient_number) VALUES (?, ?)');
  const findActor = db.prepare<[string, string, string, string], { ref: number }>(
    'SELECT ref FROM audit_actors WHERE actor_id = ? AND actor_type = ? AND actor_name = ? AND source = ?',
  );
  const addActor = db.prepare<[string, string, string, string]>(
    'INSERT INTO audit_actors (actor_id, actor_type, actor_name, source) VALUES (?, ?, ?, ?)',
  );
  const addContext = db.prepare<[number, string | null, string | null]>(
    'INSERT INTO audit_contexts (actor_ref, request_id, detail) VALUES (?, ?, ?)',
  );
  const addEvent = db.prepare<[number, StoredValue, number, number | null, StoredValue, number, StoredValue, StoredValue]>(
    `INSERT INTO audit_trail (seq, at, action_code, patient_ref, subject_id, context_ref, hash, prev_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addClockStep = db.prepare<[number]>('INSERT INTO audit_clock_steps (seq) VALUES (?)');

  const actions = new Map<string, number>();
  const patients = new Remembered<number>();
  const actors = new Remembered<number>();
  const refOf = <K extends unknown[]>(
    remembered: { get(key: string): number | undefined; set(key: string, value: number): void },
    key: K,
    find: { get(...key: K): { code?: number; ref?: number } | undefined },
    add: { run(...key: K): { lastInsertRowid: number | bigint } },
  ): number => {
    const text = JSON.stringify(key);
    let ref = remembered.get(text);
    if (ref === undefined) {
      const found = find.get(...key);
      ref = found === undefined ? Number(add.run(...key).lastInsertRowid) : (found.code ?? found.ref)!;
      remembered.set(text, ref);
    }
    return ref;
  };

  let previous: { hash: string; time: number } | undefined;
  let context: { key: string; ref: number } | undefined;
  for (let after = 0; ;) {
    const rows = read.all(after, SLICE);
    if (rows.length === 0) break;
    for (const row of rows) {
      const actionCode = refOf(actions, [row.action, row.subject_type], findAction, addAction);
      const patientRef =
        row.patient_id === null && row.patient_number === null
          ? null
          : refOf(patients, [row.patient_id, row.patient_number], findPatient, addPatient);
      const contextKey = JSON.stringify([row.actor_type, row.actor_id, row.actor_name, row.source, row.request_id, row.detail]);
      if (context?.key !== contextKey) {
        const actorRef = refOf(actors, [row.actor_id, row.actor_type, row.actor_name, row.source], findActor, addActor);
        context = { key: contextKey, ref: Number(addContext.run(actorRef, row.request_id, row.detail).lastInsertRowid) };
      }
      const at = encodeAt(row.at);
      // The chain's link is kept only where it is not the event before's hash (so a broken link stays broken).
      const prevHash = row.prev_hash === (previous?.hash ?? ZERO_HASH) ? null : encodeHash(row.prev_hash);
      addEvent.run(
        row.seq,
        at,
        actionCode,
        patientRef,
        encodeSubject(row.subject_id, row.patient_id),
        context.ref,
        encodeHash(row.hash),
        prevHash,
      );
      const time = timeOf(at);
      if (previous !== undefined && time < previous.time) addClockStep.run(row.seq);
      previous = { hash: row.hash, time };
    }
    after = rows.at(-1)!.seq;
  }
}
