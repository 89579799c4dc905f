import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { performUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { readDatabase } from '../../helpers/release-database.js';
import { schemaOf } from '../../helpers/schema-of.js';
import { useDataDirs } from '../../helpers/fixtures.js';

/** The reminders table and its indexes as schema 17 made them (migrations 13 to 15). */
const SCHEMA_17_REMINDERS = `
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
  CREATE INDEX reminders_by_due ON reminders (due_at, id);
  CREATE INDEX scheduled_reminders_by_due ON reminders (due_at) WHERE state = 'scheduled';
  CREATE INDEX reminders_by_appointment ON reminders (appointment_id, due_at, id);
  CREATE INDEX sent_sms_reminders_by_recipient ON reminders (recipient) WHERE state = 'sent' AND channel = 'sms';`;

const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };

/**
 * Schema 18 (issue 46) copies the reminders into a table without the UNIQUE index on id and with
 * two indexes instead of four: on a database whose reminders were planned under schema 17, every
 * row, its seq and the table's AUTOINCREMENT counter come through, and the schema is a new one's.
 */
describe('upgrading schema 17 reminders to schema 18', () => {
  const newDataDir = useDataDirs();
  let dataDir: string;
  let fresh: string;
  let before17: unknown[];

  before(() => {
    // Reminders planned by this program, then their table put back as schema 17 had it.
    dataDir = newDataDir();
    fresh = newDataDir();
    const db = openDatabase(dataDir);
    const run = (useCase: AnyUseCase, body: object) => performUseCase(useCase as never, db, { body }, desk);
    run(SET_CLINIC_NAME, { name: 'Praxis' });
    run(SET_REMINDERS, { before: ['1d', '2h'] });
    const patient = createTestPatient(db);
    for (const day of [3, 4, 5]) {
      run(BOOK_APPOINTMENT, { patient_id: patient.id, start_at: `2030-03-0${day}T09:00:00Z`, end_at: `2030-03-0${day}T09:30:00Z` });
    }
    db.prepare("UPDATE reminders SET state = 'sent', channel = 'sms', recipient = '+436641234567', text = 'Hallo' WHERE seq = 2").run();
    db.prepare('DELETE FROM reminders WHERE seq = 6').run();
    db.exec(`ALTER TABLE reminders RENAME TO reminders_18;
             DROP INDEX reminders_by_state_due; DROP INDEX reminders_by_appointment; DROP INDEX sent_sms_reminders_by_recipient;
             ${SCHEMA_17_REMINDERS}
             INSERT INTO reminders SELECT * FROM reminders_18;
             DROP TABLE reminders_18;
             UPDATE sqlite_sequence SET seq = 6 WHERE name = 'reminders';
             DROP INDEX invoices_open_by_patient; -- schema 19's (open-invoices-19.test.ts)
             PRAGMA user_version = 17;`);
    before17 = db.prepare('SELECT * FROM reminders ORDER BY seq').all();
    db.close();
    openDatabase(fresh).close();
  });

  it('keeps every row with its seq and the counter, and ends with the schema of a new database', () => {
    assert.equal(before17.length, 5);
    const db = openDatabase(dataDir);
    try {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.deepEqual(db.prepare('SELECT * FROM reminders ORDER BY seq').all(), before17);
      // The deleted sixth row's seq is not handed out again.
      const patient = db.prepare<[], { id: string }>('SELECT id FROM patients').get()!;
      performUseCase(
        BOOK_APPOINTMENT as never,
        db,
        { body: { patient_id: patient.id, start_at: '2030-03-09T09:00:00Z', end_at: '2030-03-09T09:30:00Z' } },
        desk,
      );
      assert.deepEqual(db.prepare('SELECT seq FROM reminders WHERE seq > 5 ORDER BY seq').all(), [{ seq: 7 }, { seq: 8 }]);
    } finally {
      db.close();
    }
    assert.deepEqual(schemaOf(dataDir), schemaOf(fresh));
    assert.deepEqual(
      readDatabase(dataDir, (db) => db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'reminders' ORDER BY name").all()),
      [
        { name: 'reminders' },
        { name: 'reminders_by_appointment' },
        { name: 'reminders_by_state_due' },
        { name: 'sent_sms_reminders_by_recipient' },
      ],
    );
  });
});
