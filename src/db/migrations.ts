import type { Db } from './drivers/sqlite-driver.js';
import type { Migration } from './migration-step.js';
import { loadSchemaSql } from './schema-sql.js';
import { patientPhoneDigits, patientSearchTerms } from '../fields/search-terms.js';
import { COMPACT_AUDIT_TRAIL } from './migration-7-compact-audit-trail.js';
import { withoutIgnorableCharacters } from '../fields/invisible-text.js';

/** The six scopes of interface 1.0.0: a key holding all of them was issued without --scopes. */
const SCOPES_1_0_0 = ['patients:write', 'appointments:write', 'documents:write', 'lookups:read', 'invoices:read', 'payments:write'];

/** Version 2, interface 1.1.0: the read side's indexes, patient search and unscoped keys. */
const READ_SIDE: Migration = {
  version: 2,
  sql: `
    CREATE TABLE patient_search_terms (
      term        TEXT NOT NULL,
      last_name   TEXT NOT NULL,
      first_name  TEXT NOT NULL,
      patient_seq INTEGER NOT NULL REFERENCES patients (seq),
      PRIMARY KEY (term, last_name, first_name, patient_seq)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX patient_search_terms_by_patient ON patient_search_terms (patient_seq, term);
    CREATE TABLE patient_phone_digits (
      patient_seq INTEGER PRIMARY KEY REFERENCES patients (seq),
      digits      TEXT NOT NULL
    ) STRICT;
    CREATE INDEX patients_by_name ON patients (last_name, first_name);
    CREATE INDEX appointments_by_start ON appointments (start_at);
    CREATE INDEX appointments_by_doctor ON appointments (resource_id, start_at);
    CREATE INDEX payments_by_created_at ON payments (created_at);
    CREATE TABLE appointment_extent (
      id         INTEGER PRIMARY KEY CHECK (id = 1),
      longest_ms INTEGER NOT NULL CHECK (longest_ms >= 0)
    ) STRICT;
    INSERT INTO appointment_extent (id, longest_ms) VALUES (1, 0);
    -- 1.0.0 did not record whether --scopes was used (clinic-api-1.1.md, "Scopes").
    UPDATE api_keys SET scopes = '*'
     WHERE ${SCOPES_1_0_0.map((scope) => `instr(' ' || scopes || ' ', ' ${scope} ') > 0`).join(' AND ')};
  `,
  fill(db) {
    // Its own statements, not src/db's: this step must keep doing what it did when it shipped.
    const insertTerm = db.prepare<[string, string, string, number]>(
      'INSERT OR IGNORE INTO patient_search_terms (term, last_name, first_name, patient_seq) VALUES (?, ?, ?, ?)',
    );
    const patients = db.prepare<[], { seq: number; first_name: string; last_name: string }>(
      'SELECT seq, first_name, last_name, date_of_birth, email, phone, mobile FROM patients',
    );
    const insertDigits = db.prepare<[number, string]>('INSERT INTO patient_phone_digits (patient_seq, digits) VALUES (?, ?)');
    for (const patient of patients.all()) {
      for (const term of patientSearchTerms(patient)) insertTerm.run(term, patient.last_name, patient.first_name, patient.seq);
      const digits = patientPhoneDigits(patient);
      if (digits !== null) insertDigits.run(patient.seq, digits);
    }
    // Measured as booking does (Date.parse), so that every stored year counts alike.
    let longest = 0;
    for (const { start_at, end_at } of db
      .prepare<[], { start_at: string; end_at: string }>('SELECT start_at, end_at FROM appointments')
      .all()) {
      longest = Math.max(longest, Date.parse(end_at) - Date.parse(start_at));
    }
    db.prepare<[number]>('UPDATE appointment_extent SET longest_ms = ? WHERE id = 1').run(longest);
  },
};

/**
 * Version 3, interface 1.2.0 (corrections): a patient's version, an appointment's status reason
 * and change time, void invoices (the status CHECK changes, so the table is rebuilt), and refunds.
 */
const CORRECTIONS: Migration = {
  version: 3,
  rebuildsTables: true,
  sql: `
    ALTER TABLE patients ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE appointments ADD COLUMN status_reason TEXT;
    ALTER TABLE appointments ADD COLUMN status_changed_at TEXT;

    CREATE TABLE invoices_v3 (
      seq               INTEGER PRIMARY KEY AUTOINCREMENT,
      id                TEXT NOT NULL UNIQUE,
      invoice_number    TEXT NOT NULL UNIQUE,
      patient_id        TEXT NOT NULL REFERENCES patients (id),
      status            TEXT NOT NULL CHECK (status IN ('issued', 'partially_paid', 'paid', 'void')),
      currency          TEXT NOT NULL,
      total_cents       INTEGER NOT NULL CHECK (total_cents > 0),
      amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
      balance_cents     INTEGER NOT NULL CHECK (balance_cents >= 0),
      issued_at         TEXT NOT NULL,
      created_at        TEXT NOT NULL,
      updated_at        TEXT NOT NULL,
      voided_at         TEXT,
      void_reason       TEXT,
      CHECK ((status = 'void') = (voided_at IS NOT NULL AND void_reason IS NOT NULL)),
      CHECK (status <> 'void' OR (amount_paid_cents = 0 AND balance_cents = 0)),
      CHECK (status = 'void' OR amount_paid_cents + balance_cents = total_cents),
      CHECK (status = 'void' OR (status = 'paid') = (balance_cents = 0)),
      CHECK (status = 'void' OR (status = 'issued') = (amount_paid_cents = 0))
    ) STRICT;
    INSERT INTO invoices_v3 (seq, id, invoice_number, patient_id, status, currency, total_cents, amount_paid_cents,
                             balance_cents, issued_at, created_at, updated_at)
      SELECT seq, id, invoice_number, patient_id, status, currency, total_cents, amount_paid_cents,
             balance_cents, issued_at, created_at, updated_at
        FROM invoices;
    DROP TABLE invoices;
    ALTER TABLE invoices_v3 RENAME TO invoices;
    CREATE INDEX invoices_by_patient ON invoices (patient_id, issued_at);
    CREATE INDEX invoices_by_issued_at ON invoices (issued_at);
    CREATE INDEX invoices_open_by_issued_at ON invoices (issued_at) WHERE balance_cents > 0;

    CREATE TABLE refunds (
      seq                       INTEGER PRIMARY KEY AUTOINCREMENT,
      id                        TEXT NOT NULL UNIQUE,
      payment_id                TEXT NOT NULL REFERENCES payments (id),
      invoice_id                TEXT NOT NULL REFERENCES invoices (id),
      amount_cents              INTEGER NOT NULL CHECK (amount_cents > 0),
      method                    TEXT NOT NULL CHECK (method IN ('cash', 'card', 'bank', 'other')),
      reason                    TEXT NOT NULL,
      idempotency_key           TEXT UNIQUE,
      request_fingerprint       TEXT NOT NULL,
      invoice_status            TEXT NOT NULL,
      invoice_amount_paid_cents INTEGER NOT NULL,
      invoice_balance_cents     INTEGER NOT NULL,
      payment_refunded_cents    INTEGER NOT NULL,  -- all refunded of the payment once this one is: what is left is its amount less this
      created_at                TEXT NOT NULL
    ) STRICT;
    CREATE INDEX refunds_by_payment ON refunds (payment_id);
    CREATE INDEX refunds_by_invoice ON refunds (invoice_id);
    CREATE INDEX refunds_by_created_at ON refunds (created_at);
    CREATE TRIGGER refunds_are_final_on_update BEFORE UPDATE ON refunds
    BEGIN
      SELECT RAISE(ABORT, 'refunds are final: a recorded refund cannot be changed');
    END;
    CREATE TRIGGER refunds_are_final_on_delete BEFORE DELETE ON refunds
    BEGIN
      SELECT RAISE(ABORT, 'refunds are final: a recorded refund cannot be deleted');
    END;
  `,
};

/** Version 4, interface 1.2.0 (audit trail): the hash-chained, append-only audit_events. */
const AUDIT_TRAIL: Migration = {
  version: 4,
  sql: `
    -- The audit trail (clinic-api-1.2.md, "Audit trail"): one row per patient whose data an answer
    -- showed or changed. seq is given by the program (the last + 1, in the transaction that also
    -- writes what it records), so it has no gaps; hash chains every row to the one before, and the
    -- triggers below refuse any change or removal, so a row can only be appended.
    CREATE TABLE audit_events (
      seq            INTEGER PRIMARY KEY CHECK (seq >= 1),
      at             TEXT NOT NULL,
      action         TEXT NOT NULL,
      patient_id     TEXT,
      patient_number TEXT,
      subject_type   TEXT NOT NULL,
      subject_id     TEXT,
      actor_type     TEXT NOT NULL CHECK (actor_type IN ('api_key', 'cli')),
      actor_id       TEXT NOT NULL,
      actor_name     TEXT NOT NULL,
      source         TEXT NOT NULL,
      request_id     TEXT,
      -- JSON as hashed (canonical: keys sorted), or NULL.
      detail         TEXT,
      prev_hash      TEXT NOT NULL,
      hash           TEXT NOT NULL
    ) STRICT;
    -- "Who has seen this patient?" (GET /audit-events?patient_id, clinic audit list --patient) and a
    -- window of time (from/to, clinic audit list --date): each a range of one index, in seq order.
    CREATE INDEX audit_events_by_patient ON audit_events (patient_id, seq);
    CREATE INDEX audit_events_by_time ON audit_events (at, seq);
    CREATE TRIGGER audit_events_are_append_only_on_update BEFORE UPDATE ON audit_events
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be changed');
    END;
    CREATE TRIGGER audit_events_are_append_only_on_delete BEFORE DELETE ON audit_events
    BEGIN
      SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be deleted');
    END;
  `,
};

/** Version 5, interface 1.2.0 (change feed): the append-only change_events and the webhook endpoints. */
const CHANGE_FEED: Migration = {
  version: 5,
  sql: `
    -- The change feed (clinic-api-1.2.md, "Change feed"): one row per committed change, appended in
    -- the change's own transaction (a transactional outbox), so there is never an event for a change
    -- rolled back nor a change without its event. seq is the rowid SQLite gives (the largest + 1,
    -- under the write lock the change already holds), so it follows commit order without gaps; the
    -- triggers below refuse any change or removal, which keeps it so.
    CREATE TABLE change_events (
      seq         INTEGER PRIMARY KEY CHECK (seq >= 1),
      type        TEXT NOT NULL,
      occurred_at TEXT NOT NULL,
      patient_id  TEXT,
      -- The event's thin data as JSON: ids and what an integration needs to decide to read more.
      data        TEXT NOT NULL
    ) STRICT;
    -- GET /events?types and a webhook of some types: each type's events in seq order, a range each.
    CREATE INDEX change_events_by_type ON change_events (type, seq);
    CREATE TRIGGER change_events_are_append_only_on_update BEFORE UPDATE ON change_events
    BEGIN
      SELECT RAISE(ABORT, 'the change feed is append-only: an event cannot be changed');
    END;
    CREATE TRIGGER change_events_are_append_only_on_delete BEFORE DELETE ON change_events
    BEGIN
      SELECT RAISE(ABORT, 'the change feed is append-only: an event cannot be deleted');
    END;

    -- The webhook endpoints (clinic webhook add), each with where it stands in the feed: every
    -- event up to its position has been delivered or is not of its types. Delivery is the server's
    -- (clinic serve); the desk's commands change the row and the server follows.
    CREATE TABLE webhook_endpoints (
      id                 TEXT PRIMARY KEY,
      name               TEXT NOT NULL UNIQUE,
      url                TEXT NOT NULL,
      -- JSON array of event types, or NULL for every type (also those later versions add).
      types              TEXT,
      -- 'whsec_' + base64 of the random key the signatures are made with (Standard Webhooks).
      secret             TEXT NOT NULL,
      state              TEXT NOT NULL CHECK (state IN ('enabled', 'disabled')),
      position           INTEGER NOT NULL CHECK (position >= 0),
      last_delivered_seq INTEGER,
      last_delivered_at  TEXT,
      -- The current run of failures: since when, how many attempts, when the next, and why the last failed.
      failing_since      TEXT,
      failed_attempts    INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
      next_attempt_at    TEXT,
      last_error         TEXT,
      disabled_at        TEXT,
      created_at         TEXT NOT NULL
    ) STRICT;
  `,
};

/**
 * Version 6, interface 1.2.0 (network): a key's own limit of requests per minute (`api-key create
 * --rate-limit`). Every key made before has none, so the column is NULL for them.
 */
const KEY_RATE_LIMIT: Migration = {
  version: 6,
  sql: `
    ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute INTEGER CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000);
  `,
};

/**
 * Version 8 (issue 39; it follows version 7, the audit trail's compact storage). The ranges of
 * the change feed a restore leaves behind (schema.sql), so that no seq is handed out twice. And
 * names stored by an older program with characters that print as nothing (a zero-width space in
 * `Z<U+200B>ürcher`, which 1.2.0 took) get search terms without them, as search now folds them
 * away, so `zürcher` finds that patient. The names themselves stay as they were stored: a
 * migration changes no patient's record behind its version and the change feed.
 */
const HOSTILE_INPUT_2: Migration = {
  version: 8,
  sql: `
    CREATE TABLE change_feed_lost_ranges (
      first_seq         INTEGER PRIMARY KEY CHECK (first_seq >= 1),
      last_seq          INTEGER NOT NULL CHECK (last_seq >= first_seq),
      restored_at       TEXT NOT NULL,
      backup_created_at TEXT NOT NULL,
      bound             TEXT NOT NULL CHECK (bound IN ('replaced_database', 'margin'))
    ) STRICT;
    CREATE TRIGGER change_feed_lost_ranges_are_append_only_on_update BEFORE UPDATE ON change_feed_lost_ranges
    BEGIN
      SELECT RAISE(ABORT, 'a range of the change feed lost in a restore cannot be changed');
    END;
    CREATE TRIGGER change_feed_lost_ranges_are_append_only_on_delete BEFORE DELETE ON change_feed_lost_ranges
    BEGIN
      SELECT RAISE(ABORT, 'a range of the change feed lost in a restore cannot be deleted');
    END;
  `,
  fill(db) {
    // Its own statements, as version 2's. The names are read from the index patients_by_name,
    // which holds them, not from the wide rows, and only the patients whose names hold such a
    // character are read whole and get new terms: every other patient's terms are already what
    // patientSearchTerms makes.
    const names = db.prepare<[], { seq: number; first_name: string; last_name: string }>(
      'SELECT seq, first_name, last_name FROM patients INDEXED BY patients_by_name',
    );
    const patient = db.prepare<[number], { seq: number; first_name: string; last_name: string }>(
      'SELECT seq, first_name, last_name, date_of_birth, email FROM patients WHERE seq = ?',
    );
    const deleteTerms = db.prepare<[number]>("DELETE FROM patient_search_terms WHERE patient_seq = ? AND term LIKE 'n:%'");
    const insertTerm = db.prepare<[string, string, string, number]>(
      'INSERT OR IGNORE INTO patient_search_terms (term, last_name, first_name, patient_seq) VALUES (?, ?, ?, ?)',
    );
    const changed = names
      .all()
      .filter((row) => withoutIgnorableCharacters(row.first_name + row.last_name) !== row.first_name + row.last_name);
    for (const { seq } of changed) {
      const whole = patient.get(seq)!;
      deleteTerms.run(seq);
      for (const term of patientSearchTerms(whole)) insertTerm.run(term, whole.last_name, whole.first_name, seq);
    }
  },
};

/**
 * Version 9, interface 1.3.0 ("Corrections the desk asked for"; it follows issue 39's 7 and 8):
 * doctors and services that can be retired, credit notes, and the stored answers of POSTs sent
 * with an Idempotency-Key. The invoices' CHECKs change (what credit notes took off counts in the
 * total), which SQLite can only do by rebuilding the table: every row is copied with its seq, so
 * numbers, ids and the listing order stay, and its three indexes are made again (it has no
 * trigger; payments, refunds and the notification outbox refer to it by id, which the rebuild
 * keeps: migrate() runs `foreign_key_check` before it commits). Names and colours stored before
 * stay as they are: two doctors of one name stay two until one is renamed or retired.
 */
const DESK_CORRECTIONS: Migration = {
  version: 9,
  rebuildsTables: true,
  sql: `
    ALTER TABLE doctors ADD COLUMN retired_at TEXT;
    ALTER TABLE services ADD COLUMN retired_at TEXT;

    CREATE TABLE invoices_v9 (
      seq               INTEGER PRIMARY KEY AUTOINCREMENT,
      id                TEXT NOT NULL UNIQUE,
      invoice_number    TEXT NOT NULL UNIQUE,
      patient_id        TEXT NOT NULL REFERENCES patients (id),
      status            TEXT NOT NULL CHECK (status IN ('issued', 'partially_paid', 'paid', 'void')),
      currency          TEXT NOT NULL,
      total_cents       INTEGER NOT NULL CHECK (total_cents > 0),
      amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
      balance_cents     INTEGER NOT NULL CHECK (balance_cents >= 0),
      issued_at         TEXT NOT NULL,
      created_at        TEXT NOT NULL,
      updated_at        TEXT NOT NULL,
      voided_at         TEXT,
      void_reason       TEXT,
      amount_credited_cents INTEGER NOT NULL DEFAULT 0 CHECK (amount_credited_cents >= 0),
      CHECK (amount_credited_cents < total_cents),
      CHECK ((status = 'void') = (voided_at IS NOT NULL AND void_reason IS NOT NULL)),
      CHECK (status <> 'void' OR (amount_paid_cents = 0 AND balance_cents = 0)),
      CHECK (status = 'void' OR amount_paid_cents + balance_cents + amount_credited_cents = total_cents),
      CHECK (status = 'void' OR (status = 'paid') = (balance_cents = 0)),
      CHECK (status = 'void' OR (status = 'issued') = (amount_paid_cents = 0))
    ) STRICT;
    INSERT INTO invoices_v9 (seq, id, invoice_number, patient_id, status, currency, total_cents, amount_paid_cents,
                             balance_cents, issued_at, created_at, updated_at, voided_at, void_reason)
      SELECT seq, id, invoice_number, patient_id, status, currency, total_cents, amount_paid_cents,
             balance_cents, issued_at, created_at, updated_at, voided_at, void_reason
        FROM invoices ORDER BY seq;
    DROP TABLE invoices;
    ALTER TABLE invoices_v9 RENAME TO invoices;
    CREATE INDEX invoices_by_patient ON invoices (patient_id, issued_at);
    CREATE INDEX invoices_by_issued_at ON invoices (issued_at);
    CREATE INDEX invoices_open_by_issued_at ON invoices (issued_at) WHERE balance_cents > 0;

    CREATE TABLE credit_notes (
      seq                INTEGER PRIMARY KEY AUTOINCREMENT,
      id                 TEXT NOT NULL UNIQUE,
      credit_note_number TEXT NOT NULL UNIQUE,
      invoice_id         TEXT NOT NULL REFERENCES invoices (id),
      amount_cents       INTEGER NOT NULL CHECK (amount_cents > 0),
      reason             TEXT NOT NULL,
      refund_id          TEXT UNIQUE REFERENCES refunds (id),
      created_at         TEXT NOT NULL
    ) STRICT;
    CREATE INDEX credit_notes_by_invoice ON credit_notes (invoice_id);
    CREATE INDEX credit_notes_by_created_at ON credit_notes (created_at);
    CREATE TRIGGER credit_notes_are_final_on_update BEFORE UPDATE ON credit_notes
    BEGIN
      SELECT RAISE(ABORT, 'credit notes are final: a credit note cannot be changed');
    END;
    CREATE TRIGGER credit_notes_are_final_on_delete BEFORE DELETE ON credit_notes
    BEGIN
      SELECT RAISE(ABORT, 'credit notes are final: a credit note cannot be deleted');
    END;
    CREATE TABLE credit_note_counters (
      year        INTEGER PRIMARY KEY,
      last_number INTEGER NOT NULL CHECK (last_number > 0)
    ) STRICT;

    CREATE TABLE idempotent_answers (
      idempotency_key TEXT PRIMARY KEY,
      operation       TEXT NOT NULL,
      fingerprint     TEXT NOT NULL,
      status          INTEGER NOT NULL CHECK (status BETWEEN 200 AND 299),
      body            TEXT NOT NULL,
      created_at      TEXT NOT NULL,
      expires_at      TEXT NOT NULL
    ) STRICT;
    CREATE INDEX idempotent_answers_by_expiry ON idempotent_answers (expires_at);
  `,
};

/**
 * Version 10, interface 1.3.0 (documents by number, issue 42): a document's `document_number`
 * (D-000017), made from an AUTOINCREMENT `seq` as patient and appointment numbers are, so none is
 * ever reused. SQLite cannot add an INTEGER PRIMARY KEY to a table, so `documents` is rebuilt
 * (nothing refers to it), its rows numbered in the order they were uploaded: by `created_at`, and
 * by the rowid among uploads of one millisecond. Versions 7 to 9 (the audit
 * trail, the feed's lost ranges, the desk's corrections) touch other tables.
 */
const DOCUMENT_NUMBERS: Migration = {
  version: 10,
  rebuildsTables: true,
  sql: `
    CREATE TABLE documents_numbered (
      seq             INTEGER PRIMARY KEY AUTOINCREMENT,
      id              TEXT NOT NULL UNIQUE,
      document_number TEXT NOT NULL GENERATED ALWAYS AS (printf('D-%06d', seq)) VIRTUAL,
      patient_id      TEXT NOT NULL REFERENCES patients (id),
      filename        TEXT NOT NULL,
      content_type    TEXT NOT NULL,
      size            INTEGER NOT NULL CHECK (size > 0),
      sha256          TEXT NOT NULL,
      title           TEXT,
      type            TEXT NOT NULL,
      created_at      TEXT NOT NULL
    ) STRICT;
    -- seq given explicitly, in upload order; AUTOINCREMENT then goes on after the largest.
    INSERT INTO documents_numbered (seq, id, patient_id, filename, content_type, size, sha256, title, type, created_at)
      SELECT row_number() OVER (ORDER BY created_at, rowid), id, patient_id, filename, content_type, size, sha256, title, type, created_at
      FROM documents;
    DROP TABLE documents;
    ALTER TABLE documents_numbered RENAME TO documents;
    CREATE INDEX documents_by_patient ON documents (patient_id, created_at);
  `,
};

/**
 * Version 11, interface 1.3.0 (people and roles, issue 44): the clinic's persons and their
 * sessions, two new tables; nothing stored before changes, and while no person exists every
 * command works as before.
 */
const PEOPLE: Migration = {
  version: 11,
  sql: `
    -- The clinic's people (interface 1.3.0, "People and roles"): never deleted, only disabled. The
    -- name is unique in any case (name_key, the name lower-cased). A PIN is kept only as its scrypt
    -- hash, a setup code only as its SHA-256 until it is used or its day is over. Five wrong PINs in
    -- a row lock the person for 15 minutes (failed_pins, locked_until). The persons are few (a
    -- clinic's staff): the list reads them all in seq order, the order they were added.
    CREATE TABLE persons (
      seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
      id                    TEXT NOT NULL UNIQUE,
      name                  TEXT NOT NULL,
      name_key              TEXT NOT NULL UNIQUE,
      -- space-separated role names, in the order admin, reception, practitioner, billing, scheduler
      roles                 TEXT NOT NULL CHECK (roles <> ''),
      enabled               INTEGER NOT NULL CHECK (enabled IN (0, 1)),
      pin_hash              TEXT,
      setup_code_hash       TEXT,
      setup_code_expires_at TEXT,
      failed_pins           INTEGER NOT NULL DEFAULT 0 CHECK (failed_pins >= 0),
      locked_until          TEXT,
      last_login_at         TEXT,
      created_at            TEXT NOT NULL
    ) STRICT;

    -- A person's sessions: a token (only its SHA-256 kept) made by clinic login (device_id NULL on
    -- the server PC). It ends 30 minutes after last_used_at, at expires_at (12 h after login), or when
    -- ended_at is set (end_reason: logged_out, replaced, pin_reset). A request finds its session by
    -- the token's hash; the partial index keeps a person's open sessions at hand for reset-pin.
    CREATE TABLE sessions (
      id           TEXT PRIMARY KEY,
      token_hash   TEXT NOT NULL UNIQUE,
      person_id    TEXT NOT NULL REFERENCES persons (id),
      device_id    TEXT,
      created_at   TEXT NOT NULL,
      last_used_at TEXT NOT NULL,
      expires_at   TEXT NOT NULL,
      ended_at     TEXT,
      end_reason   TEXT CHECK (end_reason IN ('logged_out', 'replaced', 'pin_reset'))
    ) STRICT;
    CREATE INDEX open_sessions_by_person ON sessions (person_id) WHERE ended_at IS NULL;
  `,
};

const DEVICES: Migration = {
  version: 12,
  sql: `
    -- The clinic's desk PCs (interface 1.3.0, "Pairing"), as schema.sql says; a session may now end
    -- with its device (end_reason device_revoked): the sessions table is made again with that CHECK.
    CREATE TABLE devices (
      seq             INTEGER PRIMARY KEY AUTOINCREMENT,
      id              TEXT NOT NULL UNIQUE,
      name            TEXT NOT NULL,
      name_key        TEXT NOT NULL UNIQUE,
      code_hash       TEXT UNIQUE,
      code_expires_at TEXT,
      token_hash      TEXT UNIQUE,
      created_at      TEXT NOT NULL,
      joined_at       TEXT,
      revoked_at      TEXT,
      host_name       TEXT,
      last_seen_at    TEXT,
      last_address    TEXT,
      desk_version    TEXT
    ) STRICT;

    CREATE TABLE sessions_12 (
      id           TEXT PRIMARY KEY,
      token_hash   TEXT NOT NULL UNIQUE,
      person_id    TEXT NOT NULL REFERENCES persons (id),
      device_id    TEXT,
      created_at   TEXT NOT NULL,
      last_used_at TEXT NOT NULL,
      expires_at   TEXT NOT NULL,
      ended_at     TEXT,
      end_reason   TEXT CHECK (end_reason IN ('logged_out', 'replaced', 'pin_reset', 'device_revoked'))
    ) STRICT;
    INSERT INTO sessions_12 SELECT id, token_hash, person_id, device_id, created_at, last_used_at, expires_at, ended_at, end_reason FROM sessions;
    DROP TABLE sessions;
    ALTER TABLE sessions_12 RENAME TO sessions;
    CREATE INDEX open_sessions_by_person ON sessions (person_id) WHERE ended_at IS NULL;
    CREATE INDEX open_sessions_by_device ON sessions (device_id) WHERE ended_at IS NULL AND device_id IS NOT NULL;
  `,
};

const REMINDERS: Migration = {
  version: 13,
  sql: `
    -- Interface 1.3.0, "Appointment reminders and confirmations": a patient may opt out; an
    -- appointment may be declined by the patient; the reminders themselves, as schema.sql says.
    ALTER TABLE patients ADD COLUMN reminders_opt_out INTEGER NOT NULL DEFAULT 0 CHECK (reminders_opt_out IN (0, 1));
    ALTER TABLE appointments ADD COLUMN patient_declined_at TEXT;
    -- Appointment reminders (interface 1.3.0): one row per rule for each future appointment of a
    -- patient, planned in the booking's transaction and moved by the changes of the appointment and of
    -- the rules. state: scheduled, then one final state (sent, failed, withdrawn, expired, skipped)
    -- with its reason. rule_ms: how long before the start it is due (the rule it was planned for).
    -- channel, recipient, subject and text are what was sent (null until a sending decides them);
    -- lease_until holds a row while one server sends it, so no two send it; attempts counts tries
    -- whose outcome is known or unknown, next_attempt_at the next try after a transient failure.
    CREATE TABLE reminders (
      seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
      id                  TEXT NOT NULL UNIQUE,
      appointment_id      TEXT NOT NULL REFERENCES appointments (id),
      patient_id          TEXT NOT NULL REFERENCES patients (id),
      rule_ms             INTEGER NOT NULL CHECK (rule_ms > 0),
      due_at              TEXT NOT NULL,
      state               TEXT NOT NULL CHECK (state IN ('scheduled', 'sent', 'failed', 'withdrawn', 'expired', 'skipped')),
      reason              TEXT,
      channel             TEXT CHECK (channel IN ('sms', 'email')),
      recipient           TEXT,
      subject             TEXT,
      text                TEXT,
      attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at     TEXT,
      lease_until         TEXT,
      sent_at             TEXT,
      provider_message_id TEXT,
      error               TEXT,
      created_at          TEXT NOT NULL,
      updated_at          TEXT NOT NULL
    ) STRICT;
    -- GET /reminders in its order (due_at, id), whole or of one clinic day; the sender's scan of what
    -- is due reads the scheduled ones only.
    CREATE INDEX reminders_by_due ON reminders (due_at, id);
    CREATE INDEX scheduled_reminders_by_due ON reminders (due_at) WHERE state = 'scheduled';
    -- An appointment's reminders (withdrawn with it, listed with ?appointment_id=); a patient's.
    CREATE INDEX reminders_by_appointment ON reminders (appointment_id, due_at, id);
    CREATE INDEX reminders_by_patient ON reminders (patient_id, due_at, id);
  `,
};

const REMINDER_REPLIES: Migration = {
  version: 14,
  sql: `
    -- Replies to SMS reminders (interface 1.3.0, "Channels and replies"), read by clinic serve from
    -- the gateway: each message once (provider_id, the gateway's id of it), kept 90 days. outcome:
    -- confirm or decline (the appointment's patient_confirmed_at / patient_declined_at set, when
    -- that changed it), unknown (no word the clinic reads), unmatched (no appointment to come with
    -- an SMS reminder sent to that number). The sender's number is kept as E.164 when it is one.
    CREATE TABLE reminder_replies (
      id             TEXT PRIMARY KEY,
      provider_id    TEXT NOT NULL UNIQUE,
      received_at    TEXT NOT NULL,
      from_number    TEXT NOT NULL,
      text           TEXT NOT NULL,
      outcome        TEXT NOT NULL CHECK (outcome IN ('confirm', 'decline', 'unknown', 'unmatched')),
      appointment_id TEXT REFERENCES appointments (id),
      patient_id     TEXT REFERENCES patients (id)
    ) STRICT;
    -- reminders replies, newest first; the purge of those older than 90 days.
    CREATE INDEX reminder_replies_by_time ON reminder_replies (received_at);
    -- The reminders an answer from a number may concern: those sent to it by SMS.
    CREATE INDEX sent_sms_reminders_by_recipient ON reminders (recipient) WHERE state = 'sent' AND channel = 'sms';
  `,
};

const FEWER_REMINDER_INDEXES: Migration = {
  version: 15,
  sql: `
    -- A patient's reminders are read through their appointments (reminders_by_appointment): one
    -- index fewer to write for every reminder a booking plans.
    DROP INDEX reminders_by_patient;
  `,
};

/**
 * The erasure (GDPR Art. 17, 18): a patient is restricted from \`erased_at\` until the last purge.
 * The feed's events of an erased patient lose their data (and only that); the payments, refunds
 * and credit notes of an erased patient's invoice may be deleted, by the purge after their
 * retention. Everything else stays final. schema.sql holds the same.
 */
const ERASURE_SQL = `
    ALTER TABLE patients ADD COLUMN erased_at TEXT;
    CREATE TABLE purged_document_files (
      document_id TEXT PRIMARY KEY,
      patient_id  TEXT NOT NULL,
      purged_at   TEXT NOT NULL
    ) STRICT;
    DROP TRIGGER change_events_are_append_only_on_update;
    CREATE TRIGGER change_events_are_append_only_on_update BEFORE UPDATE ON change_events
    WHEN NOT (NEW.data = '{}' AND NEW.seq = OLD.seq AND NEW.type = OLD.type AND NEW.occurred_at = OLD.occurred_at
              AND NEW.patient_id IS OLD.patient_id
              AND EXISTS (SELECT 1 FROM patients WHERE id = OLD.patient_id AND erased_at IS NOT NULL))
    BEGIN
      SELECT RAISE(ABORT, 'the change feed is append-only: an event cannot be changed');
    END;
    DROP TRIGGER payments_are_final_on_delete;
    CREATE TRIGGER payments_are_final_on_delete BEFORE DELETE ON payments
    WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
    BEGIN
      SELECT RAISE(ABORT, 'payments are final: a recorded payment cannot be deleted');
    END;
    DROP TRIGGER refunds_are_final_on_delete;
    CREATE TRIGGER refunds_are_final_on_delete BEFORE DELETE ON refunds
    WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
    BEGIN
      SELECT RAISE(ABORT, 'refunds are final: a recorded refund cannot be deleted');
    END;
    DROP TRIGGER credit_notes_are_final_on_delete;
    CREATE TRIGGER credit_notes_are_final_on_delete BEFORE DELETE ON credit_notes
    WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
    BEGIN
      SELECT RAISE(ABORT, 'credit notes are final: a credit note cannot be deleted');
    END;`;

const PATIENT_RIGHTS: Migration = {
  version: 16,
  sql: `
    -- The patient's copy and erasure (1.3.0) read one patient's events of the feed.
    CREATE INDEX change_events_by_patient ON change_events (patient_id, seq) WHERE patient_id IS NOT NULL;
    -- Which of the feed's events an endpoint may have had: those after the lowest position it
    -- ever held (where it was added, or a replay took it back). Unknown (NULL) for endpoints
    -- added before 1.3.0: theirs are the events after they were added.
    ALTER TABLE webhook_endpoints ADD COLUMN first_position INTEGER;
    -- A removed endpoint, kept unlisted for the patient's copy (who received what, GDPR Art. 15).
    CREATE TABLE removed_webhook_endpoints (
      id             TEXT PRIMARY KEY,
      name           TEXT NOT NULL,
      url            TEXT NOT NULL,
      types          TEXT,
      first_position INTEGER,
      position       INTEGER NOT NULL,
      created_at     TEXT NOT NULL,
      removed_at     TEXT NOT NULL
    ) STRICT;
  `,
};

const ERASURE: Migration = { version: 17, sql: ERASURE_SQL };

/**
 * What a patient owes, from the open invoices' own index (issue 43): patient, currency, issue
 * date and balance of each invoice with a balance left, so that a patient's balance and a search
 * page's fifty are summed in the index alone, without reading an invoice row. A page of fifty
 * patients over a million invoices: 1.6-1.8 ms through invoices_by_patient and the rows, 0.15-0.2
 * ms through this (docs/benchmarks.md).
 */
const OPEN_INVOICES_BY_PATIENT: Migration = {
  version: 19,
  sql: `CREATE INDEX invoices_open_by_patient ON invoices (patient_id, currency, issued_at, balance_cents) WHERE balance_cents > 0;`,
};

/**
 * A booking's reminders in fewer pages (issue 46's cost of planning): the table without a UNIQUE
 * index on id (a random UUID made here, found through its row), one index for the sender and the
 * list by (state, due_at) instead of two, and an appointment's reminders by appointment_id
 * alone. SQLite drops a UNIQUE constraint only by copying the table; nothing refers to it.
 */
const LIGHTER_REMINDERS: Migration = {
  version: 18,
  sql: `
    CREATE TABLE reminders_v18 (
      seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
      id                  TEXT NOT NULL,
      appointment_id      TEXT NOT NULL REFERENCES appointments (id),
      patient_id          TEXT NOT NULL REFERENCES patients (id),
      rule_ms             INTEGER NOT NULL CHECK (rule_ms > 0),
      due_at              TEXT NOT NULL,
      state               TEXT NOT NULL CHECK (state IN ('scheduled', 'sent', 'failed', 'withdrawn', 'expired', 'skipped')),
      reason              TEXT,
      channel             TEXT CHECK (channel IN ('sms', 'email')),
      recipient           TEXT,
      subject             TEXT,
      text                TEXT,
      attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at     TEXT,
      lease_until         TEXT,
      sent_at             TEXT,
      provider_message_id TEXT,
      error               TEXT,
      created_at          TEXT NOT NULL,
      updated_at          TEXT NOT NULL
    ) STRICT;
    INSERT INTO reminders_v18 (seq, id, appointment_id, patient_id, rule_ms, due_at, state, reason, channel, recipient, subject,
                               text, attempts, next_attempt_at, lease_until, sent_at, provider_message_id, error, created_at, updated_at)
    SELECT seq, id, appointment_id, patient_id, rule_ms, due_at, state, reason, channel, recipient, subject,
           text, attempts, next_attempt_at, lease_until, sent_at, provider_message_id, error, created_at, updated_at FROM reminders;
    -- The counter goes with the rows: a seq handed out before (a row since deleted) is never handed out again.
    DELETE FROM sqlite_sequence WHERE name = 'reminders_v18';
    INSERT INTO sqlite_sequence (name, seq) SELECT 'reminders_v18', seq FROM sqlite_sequence WHERE name = 'reminders';
    DROP TABLE reminders;
    ALTER TABLE reminders_v18 RENAME TO reminders;
    CREATE INDEX reminders_by_state_due ON reminders (state, due_at);
    CREATE INDEX reminders_by_appointment ON reminders (appointment_id);
    CREATE INDEX sent_sms_reminders_by_recipient ON reminders (recipient) WHERE state = 'sent' AND channel = 'sms';
  `,
};

/**
 * Numbered migrations for databases created by an older program. schema.sql always describes
 * the newest version, so a new database skips these. Versions start at 2: version 1 is the first
 * schema.sql that shipped. Append only; never edit a migration that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [
  READ_SIDE,
  CORRECTIONS,
  AUDIT_TRAIL,
  CHANGE_FEED,
  KEY_RATE_LIMIT,
  COMPACT_AUDIT_TRAIL,
  HOSTILE_INPUT_2,
  DESK_CORRECTIONS,
  DOCUMENT_NUMBERS,
  PEOPLE,
  DEVICES,
  REMINDERS,
  REMINDER_REPLIES,
  FEWER_REMINDER_INDEXES,
  PATIENT_RIGHTS,
  ERASURE,
  LIGHTER_REMINDERS,
  OPEN_INVOICES_BY_PATIENT,
];

/** The user_version of a database that is fully up to date. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((latest, m) => Math.max(latest, m.version), 1);

/** A database written by a newer program (src/errors.ts makes it DATABASE_TOO_NEW). */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the database has schema version ${found}, newer than this program understands (${supported})`);
    this.name = 'SchemaTooNewError';
  }
}

/** The schema version `db` was left at (user_version): 0 for a database without a schema yet. */
export function schemaVersionOf(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Creates the schema on an empty database or applies the pending migrations, all in one
 * transaction so that a crash leaves either the old or the new schema, never half of one.
 * Refuses a database written by a newer program rather than guess at its meaning.
 */
export function migrate(db: Db): void {
  const current = schemaVersionOf(db);
  if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current, SCHEMA_VERSION);
  if (current === SCHEMA_VERSION) return;
  const pending = current === 0 ? [] : MIGRATIONS.filter((migration) => migration.version > current);
  const rebuilds = pending.some((migration) => migration.rebuildsTables === true);
  // Outside the transaction: inside one, SQLite ignores this pragma.
  if (rebuilds) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      if (current === 0) db.exec(loadSchemaSql());
      for (const migration of pending) {
        db.exec(migration.sql);
        migration.fill?.(db);
      }
      if (rebuilds) {
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`the migration would leave ${broken.length} rows referring to missing ones`);
      }
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  } finally {
    if (rebuilds) db.pragma('foreign_keys = ON');
  }
}
