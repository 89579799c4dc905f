// src/domain/audit/record-audit.ts: appending chained events to the audit trail (clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import type { Actor } from '../../../src/domain/audit/audit-event.js';
import {
  appendAuditEvents,
  DATA_EXPORT,
  onRecordOf,
  perDistinctPatient,
  recordDataExport,
} from '../../../src/domain/audit/record-audit.js';
import { connectionRunner } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { assertChain, trailOf } from '../../helpers/audit-chain.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

// Appending to the audit trail (clinic-api-1.2.md, "Audit trail"): seq without gaps, each event
// chained to the one before, committed with what it records or not at all.

const frontDesk: Actor = { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null };

describe('appending audit events', () => {
  const data = useTestDatabase({ each: true });

  it('refuses to append outside a transaction: an event must commit, or vanish, with what it records', () => {
    const patient = createTestPatient(data.db);
    assert.throws(
      () => appendAuditEvents(data.db, frontDesk, [{ action: 'patient.read', patientId: patient.id, subjectId: patient.id }]),
      /inside the transaction/,
    );
    assert.deepEqual(trailOf(data.dataDir), [], 'nothing appended');
    appendAuditEvents(data.db, frontDesk, []);
    assert.deepEqual(trailOf(data.dataDir), [], 'no records, nothing to append, even outside a transaction');
  });

  it("chains one call's events from seq 1 after 64 zeros, at one time, looking each patient's number up unless given", () => {
    const ada = createTestPatient(data.db);
    const grace = createTestPatient(data.db, { first_name: 'Grace', last_name: 'Hopper' });
    data.db.transaction(() =>
      appendAuditEvents(data.db, frontDesk, [
        { action: 'patient.search', patientId: ada.id, subjectId: null, detail: { q: 'lov' } },
        { action: 'patient.search', patientId: grace.id, patientNumber: 'P-999999', subjectId: null, detail: { q: 'lov' } },
        { action: 'data.export', patientId: null, subjectId: null },
      ]),
    )();
    const events = trailOf(data.dataDir);
    assertChain(events);
    assert.deepEqual(
      events.map((event) => [event.seq, event.action, event.patient_number, event.subject_type, event.detail]),
      [
        [1, 'patient.search', ada.patient_number, 'patient', { q: 'lov' }],
        [2, 'patient.search', 'P-999999', 'patient', { q: 'lov' }],
        [3, 'data.export', null, 'data', null],
      ],
    );
    assert.equal(new Set(events.map((event) => event.at)).size, 1, 'one time for the events of one call');
    assert.deepEqual(
      [events[0]!.actor_type, events[0]!.actor_id, events[0]!.actor_name, events[0]!.source, events[0]!.request_id],
      ['cli', 'maria', 'maria', 'reception-pc', null],
    );
  });

  it('leaves no event of a transaction that rolled back, and the next one takes its seq', () => {
    const patient = createTestPatient(data.db);
    const read = { action: 'patient.read', patientId: patient.id, subjectId: patient.id } as const;
    assert.throws(
      () =>
        data.db.transaction(() => {
          appendAuditEvents(data.db, frontDesk, [read]);
          throw new Error('the read failed after its event');
        })(),
      /the read failed/,
    );
    data.db.transaction(() => appendAuditEvents(data.db, frontDesk, [read]))();
    const events = trailOf(data.dataDir);
    assert.deepEqual(
      events.map((event) => event.seq),
      [1],
    );
    assertChain(events);
  });

  it('continues the chain another connection appended to: no seq given twice', () => {
    const desk = openDatabase(data.dataDir);
    try {
      data.db.transaction(() => appendAuditEvents(data.db, frontDesk, [DATA_EXPORT])).immediate();
      desk.transaction(() => appendAuditEvents(desk, { ...frontDesk, source: 'room-2' }, [DATA_EXPORT])).immediate();
      data.db.transaction(() => appendAuditEvents(data.db, frontDesk, [DATA_EXPORT])).immediate();
    } finally {
      desk.close();
    }
    const events = trailOf(data.dataDir);
    assertChain(events);
    assert.deepEqual(
      events.map((event) => `${event.seq} ${event.source}`),
      ['1 reception-pc', '2 room-2', '3 reception-pc'],
    );
  });

  it('records a backup as one data.export of no patient, through the front end runner', async () => {
    await recordDataExport(connectionRunner(data.db), data.db, frontDesk);
    const [event, ...more] = trailOf(data.dataDir);
    assert.deepEqual(more, []);
    assert.deepEqual(
      [event?.action, event?.patient_id, event?.patient_number, event?.subject_type, event?.subject_id, event?.detail],
      ['data.export', null, null, 'data', null, null],
    );
  });
});

describe('what a read records', () => {
  it('records one event per distinct patient of a list, in the order first shown, and none for an item of no patient', () => {
    const rows = [{ patient: 'b' }, { patient: null }, { patient: 'a' }, { patient: 'b' }, { patient: 'a' }];
    assert.deepEqual(
      perDistinctPatient(rows, (row) => row.patient, { action: 'appointment.read' }),
      [
        { action: 'appointment.read', patientId: 'b', subjectId: null },
        { action: 'appointment.read', patientId: 'a', subjectId: null },
      ],
    );
    assert.deepEqual(
      perDistinctPatient([], () => 'a', { action: 'invoice.read' }),
      [],
    );
  });

  it("records an action on a patient's record, and nothing for a doctor's blocked time of no patient", () => {
    assert.deepEqual(onRecordOf('appointment.read', 'p-1', 'a-1'), [{ action: 'appointment.read', patientId: 'p-1', subjectId: 'a-1' }]);
    assert.deepEqual(onRecordOf('appointment.read', null, 'a-1'), []);
  });
});
