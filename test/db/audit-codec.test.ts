import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rmSync } from 'node:fs';
import { listAuditEventRows, type AuditEventRow } from '../../src/db/audit-events.js';
import { openDatabase } from '../../src/db/open-database.js';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';
import { canonical, RECORDED_BY_MARIA } from '../helpers/audit-chain.js';
import { copyReleaseFixture } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';

/**
 * The compact trail (schema 7) keeps what it is given, also what the program never writes: a
 * trail that 1.2.0 stored and someone then altered is converted by migration 7 so that it reads
 * back exactly as before (the view audit_events, and the program's list alike) and fails
 * verification where it failed before, no sooner and no later.
 */
const fixture = fileURLToPath(new URL('../fixtures/release-1.2.0', import.meta.url));
const PATIENT = '5b2730a5-4a7d-42a4-ac54-47eed835ffb7';

type OldRow = Omit<AuditEventRow, 'detail'> & { detail: string | null };

const hashOf = (row: Omit<OldRow, 'hash'>) =>
  createHash('sha256')
    .update(canonical({ ...row, detail: row.detail === null ? null : tryParse(row.detail) }), 'utf8')
    .digest('hex');

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unreadable: text };
  }
}

describe('the compact audit trail keeps odd rows as they were', () => {
  let dataDir: string;
  let old: OldRow[];

  before(() => {
    dataDir = copyReleaseFixture(fixture);
    // Rows 1.2.0 would never write, appended with its own table (schema 6), hashed and chained as it hashes.
    const raw = sqliteDriver().open(join(dataDir, 'clinic.db'));
    try {
      const last = raw.prepare<[], OldRow>('SELECT * FROM audit_events ORDER BY seq DESC LIMIT 1').get()!;
      const base = {
        patient_id: PATIENT,
        patient_number: 'P-000001',
        ...RECORDED_BY_MARIA,
      };
      const odd: Partial<OldRow>[] = [
        // A time without milliseconds, and a subject in upper case: both text, not their short forms.
        { at: '2026-11-28T15:00:00Z', action: 'patient.read', subject_type: 'patient', subject_id: PATIENT.toUpperCase() },
        // The clock set back an hour; an action this program does not record; a patient without a number.
        { at: '2026-11-28T14:00:00.000Z', action: 'patient.forget', subject_type: 'patient', subject_id: null, patient_number: null },
        // A detail that is no JSON, a subject that is no UUID, a key's request.
        {
          at: '2026-11-28T15:30:00.000Z',
          action: 'patient.search',
          subject_type: 'patient',
          subject_id: 'not-a-uuid',
          detail: 'not json',
          actor_type: 'api_key',
          request_id: 'req-1',
        },
        // A hash that is no hash: the chain breaks here.
        { at: '2026-11-28T15:31:00.000Z', action: 'patient.read', subject_type: 'patient', subject_id: PATIENT, hash: 'ABC' },
        // A link to another event than the one before.
        { at: '2026-11-28T15:32:00.000Z', action: 'patient.read', subject_type: 'patient', subject_id: PATIENT, prev_hash: '1'.repeat(64) },
      ];
      const insert = raw.prepare(
        `INSERT INTO audit_events (seq, at, action, patient_id, patient_number, subject_type, subject_id, actor_type, actor_id,
           actor_name, source, request_id, detail, prev_hash, hash)
         VALUES (@seq, @at, @action, @patient_id, @patient_number, @subject_type, @subject_id, @actor_type, @actor_id,
           @actor_name, @source, @request_id, @detail, @prev_hash, @hash)`,
      );
      let prev = last;
      for (const change of odd) {
        const fields = { ...base, ...change, seq: prev.seq + 1, prev_hash: change.prev_hash ?? prev.hash } as Omit<OldRow, 'hash'>;
        const row = { ...fields, hash: change.hash ?? hashOf(fields) } as OldRow;
        insert.run(row);
        prev = row;
      }
      old = raw.prepare<[], OldRow>('SELECT * FROM audit_events ORDER BY seq').all();
    } finally {
      raw.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('reads every row back as stored, through the view and through the program’s list', () => {
    const db = openDatabase(dataDir);
    try {
      assert.deepEqual(db.prepare('SELECT * FROM audit_events ORDER BY seq').all(), old);
      const listed = listAuditEventRows(db, { patientId: null, actions: null, from: null, to: null, after: 0, limit: 1000 });
      assert.deepEqual(listed, old);
      // Only the odd values are stored long: a time, hash or subject the program writes is short.
      const forms = db
        .prepare<[], { seq: number; at: string; subject: string; hash: string; link: string }>(
          'SELECT seq, typeof(at) AS at, typeof(subject_id) AS subject, typeof(hash) AS hash, typeof(prev_hash) AS link FROM audit_trail WHERE seq > 19 ORDER BY seq',
        )
        .all();
      assert.deepEqual(
        forms.map((row) => [row.seq, row.at, row.subject, row.hash, row.link]),
        [
          [20, 'integer', 'integer', 'blob', 'null'],
          [21, 'text', 'text', 'blob', 'null'],
          [22, 'integer', 'null', 'blob', 'null'],
          [23, 'integer', 'text', 'blob', 'null'],
          [24, 'integer', 'integer', 'text', 'null'],
          [25, 'integer', 'integer', 'blob', 'blob'],
        ],
      );
    } finally {
      db.close();
    }
  });

  it('lists a window of time exactly, across the clock set back', () => {
    const db = openDatabase(dataDir);
    try {
      const windows: [string | null, string | null][] = [
        ['2026-11-28T14:28:00.000Z', '2026-11-28T15:10:00.000Z'],
        ['2026-11-28T13:00:00.000Z', '2026-11-28T14:30:00.000Z'],
        [null, '2026-11-28T14:27:45.000Z'],
        ['2026-11-28T15:00:00.000Z', null],
      ];
      for (const [from, to] of windows) {
        const expected = old
          .filter(
            (row) => (from === null || Date.parse(row.at) >= Date.parse(from)) && (to === null || Date.parse(row.at) < Date.parse(to)),
          )
          .map((row) => row.seq);
        const listed = listAuditEventRows(db, { patientId: null, actions: null, from, to, after: 0, limit: 1000 }).map((row) => row.seq);
        assert.deepEqual(listed, expected, `${from} – ${to}`);
        const paged = listAuditEventRows(db, { patientId: null, actions: null, from, to, after: expected[1] ?? 0, limit: 2 }).map(
          (row) => row.seq,
        );
        assert.deepEqual(paged, expected.filter((seq) => seq > (expected[1] ?? 0)).slice(0, 2), `${from} – ${to}, a later page`);
      }
    } finally {
      db.close();
    }
  });

  it('fails verification at the first event 1.2.0 would have failed: the action it does not record', async () => {
    const verify = await runClinic(['audit', 'verify', '--json', '--data', dataDir]);
    assert.equal(verify.code, 1, verify.stdout);
    const { detail } = JSON.parse(verify.stderr) as { detail: { code: string; seq: number } };
    assert.deepEqual([detail.code, detail.seq], ['AUDIT_CHAIN_BROKEN', 22]);
  });
});
