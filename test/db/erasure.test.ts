// The SQL of a patient's erasure and of the purges after it (clinic-api-1.3.md, "Erasure",
// "Restriction"): what each category holds of one patient, and what each statement takes away,
// keeps or refuses to touch.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { changeEventsAfter } from '../../src/db/change-events.js';
import { findDocument } from '../../src/db/documents.js';
import {
  clearPatientColumns,
  countPatientFeedEvents,
  deleteAppointmentWhole,
  deleteDocumentRow,
  deleteInvoiceWhole,
  deletePatientIdempotentAnswers,
  deletePatientMessages,
  deletePatientRow,
  emptyPatientFeedData,
  forgetPurgedDocumentFile,
  listErasableInvoices,
  listErasableMoney,
  listErasedPatientIds,
  listPatientNotificationIds,
  listPatientReminderIds,
  listPatientReplyIds,
  listPurgedDocumentFiles,
  markPatientErased,
} from '../../src/db/erasure.js';
import { findIdempotentAnswer, insertIdempotentAnswer } from '../../src/db/idempotent-answers.js';
import type { Db } from '../../src/db/open-database.js';
import { findPatient } from '../../src/db/patients.js';
import { insertReply } from '../../src/db/reminder-replies.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { addService } from '../../src/domain/catalog.js';
import { SET_CLINIC_NAME } from '../../src/domain/desk/clinic-settings.js';
import { CREATE_CREDIT_NOTE } from '../../src/domain/invoices/credit-invoice.js';
import { FIND_PATIENTS } from '../../src/domain/patients/find-patients.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { SET_REMINDERS } from '../../src/domain/reminders/set-reminders.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { addDocument } from '../helpers/module-tables.js';
import { DESK_USER } from '../helpers/use-case-scenarios.js';

/** Sets the program's clock (Date) to `iso`. */
function at(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

/** How many rows of `table` have `column` = `value`. */
const countOf = (db: Db, table: string, column: string, value: unknown) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).get(value) as { n: number }).n;

/** An invoice of 100.00 for `patientId`: 60.00 paid on 1 December, 10.00 of it refunded on the 2nd, 5.00 credited on the 3rd. */
function invoiceWithMoney(db: Db, patientId: string) {
  at('2026-11-30T09:00:00.000Z');
  const invoice = createTestInvoice(db, { patient_id: patientId });
  at('2026-12-01T09:00:00.000Z');
  const { payment } = recordPayment(db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '60.00' }) });
  at('2026-12-02T09:00:00.000Z');
  const { refund } = performUseCase(
    REFUND_PAYMENT,
    db,
    { path: { payment_id: payment.payment_id }, body: { amount: '10.00', reason: 'twice' } },
    DESK_USER,
  );
  at('2026-12-03T09:00:00.000Z');
  const credited = performUseCase(
    CREATE_CREDIT_NOTE,
    db,
    { path: { invoice_id: invoice.id }, body: { amount: '5.00', reason: 'goodwill' } },
    DESK_USER,
  );
  return { invoice, payment, refund, creditNote: credited.credit_notes[0]! };
}

describe('erasing a patient (db)', () => {
  const data = useTestDatabase({ each: true });
  beforeEach(() => at('2026-11-30T08:00:00.000Z'));
  afterEach(() => mock.timers.reset());

  it('restricts a patient: marked erased, listed among the erased, and no longer found by any word it was found by', () => {
    const erased = createTestPatient(data.db, { last_name: 'Lovelace' });
    const other = createTestPatient(data.db, { last_name: 'Lovelace', first_name: 'Byron' });
    const seqOf = (id: string) => findPatient(data.db, id)!.seq;
    markPatientErased(data.db, erased.id, '2026-12-01T10:00:00.000Z');
    const row = findPatient(data.db, erased.id)!;
    assert.deepEqual([row.erased_at, row.updated_at], ['2026-12-01T10:00:00.000Z', '2026-12-01T10:00:00.000Z']);
    assert.deepEqual(listErasedPatientIds(data.db), [erased.id]);
    assert.equal(countOf(data.db, 'patient_search_terms', 'patient_seq', seqOf(erased.id)), 0);
    assert.equal(countOf(data.db, 'patient_phone_digits', 'patient_seq', seqOf(erased.id)), 0);
    assert.ok(countOf(data.db, 'patient_search_terms', 'patient_seq', seqOf(other.id)) > 0, "the other patient's words stay");
    const found = performUseCase(FIND_PATIENTS, data.db, { query: { q: 'lovelace' } }, DESK_USER).items;
    assert.deepEqual(
      found.map((patient) => patient.id),
      [other.id],
    );
  });

  it('deletes an appointment with its services and reminders, and keeps a reply that named it without the link', () => {
    performUseCase(SET_CLINIC_NAME, data.db, { body: { name: 'Praxis' } }, DESK_USER);
    performUseCase(SET_REMINDERS, data.db, { body: { before: ['1d', '2h'], quiet_hours: 'off' } }, DESK_USER);
    const service = addService(data.db, { name: 'Check-up', duration_min: 30, price: 85, color: 'green' });
    const patient = createTestPatient(data.db);
    const book = (start: string) =>
      bookAppointment(
        data.db,
        { patient_id: patient.id, start_at: start, end_at: start.replace('T09', 'T10'), service_ids: [service.id] },
        'cli',
      );
    const erased = book('2026-12-10T09:00:00Z');
    const kept = book('2026-12-11T09:00:00Z');
    const replyId = randomUUID();
    insertReply(data.db, {
      id: replyId,
      provider_id: 'SM1',
      received_at: '2026-12-09T09:30:00.000Z',
      from_number: '+436601234567',
      text: 'C',
      outcome: 'confirm',
      appointment_id: erased.id,
      patient_id: patient.id,
    });
    assert.equal(listPatientReminderIds(data.db, patient.id).length, 4);

    deleteAppointmentWhole(data.db, erased.id);
    assert.deepEqual(
      [countOf(data.db, 'appointments', 'id', erased.id), countOf(data.db, 'appointment_services', 'appointment_id', erased.id)],
      [0, 0],
    );
    assert.equal(countOf(data.db, 'reminders', 'appointment_id', erased.id), 0);
    assert.equal(countOf(data.db, 'reminders', 'appointment_id', kept.id), 2);
    const reply = data.db.prepare('SELECT appointment_id, patient_id FROM reminder_replies WHERE id = ?').get(replyId);
    assert.deepEqual(reply, { appointment_id: null, patient_id: patient.id });
    assert.deepEqual(listPatientReplyIds(data.db, patient.id), [replyId]);

    deletePatientMessages(data.db, patient.id);
    assert.deepEqual([listPatientReminderIds(data.db, patient.id), listPatientReplyIds(data.db, patient.id)], [[], []]);
    assert.equal(countOf(data.db, 'appointments', 'id', kept.id), 1, 'a held appointment stays');
  });

  it("dates each invoice by the latest of its issue, payments, refunds and credit notes, and lists that money, the patient's only", () => {
    const patient = createTestPatient(data.db);
    const { invoice, payment, refund, creditNote } = invoiceWithMoney(data.db, patient.id);
    at('2026-12-04T09:00:00.000Z');
    const unpaid = createTestInvoice(data.db, { patient_id: patient.id });
    invoiceWithMoney(data.db, createTestPatient(data.db).id);
    assert.deepEqual(
      listErasableInvoices(data.db, patient.id).map((row) => [row.invoice_number, row.issued_at.slice(0, 10), row.latest_at.slice(0, 10)]),
      [
        [invoice.invoice_number, '2026-11-30', '2026-12-03'],
        [unpaid.invoice_number, '2026-12-04', '2026-12-04'],
      ],
    );
    assert.deepEqual(listErasableMoney(data.db, patient.id), [
      { kind: 'payment', id: payment.payment_id, number: null, invoice_id: invoice.id },
      { kind: 'refund', id: refund.refund_id, number: null, invoice_id: invoice.id },
      { kind: 'credit_note', id: creditNote.id, number: creditNote.credit_note_number, invoice_id: invoice.id },
    ]);
  });

  it("deletes an erased patient's invoice with all its money and notifications, and refuses that of a patient not erased", () => {
    const patient = createTestPatient(data.db);
    const { invoice } = invoiceWithMoney(data.db, patient.id);
    recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '45.00' }) });
    assert.equal(listPatientNotificationIds(data.db, patient.id).length, 1, 'the paid invoice queued its notification');
    assert.throws(() => data.db.transaction(() => deleteInvoiceWhole(data.db, invoice.id))(), /are final/);
    assert.equal(listErasableMoney(data.db, patient.id).length, 4);

    markPatientErased(data.db, patient.id, '2026-12-05T09:00:00.000Z');
    deleteInvoiceWhole(data.db, invoice.id);
    assert.deepEqual(listErasableInvoices(data.db, patient.id), []);
    assert.deepEqual(listErasableMoney(data.db, patient.id), []);
    assert.deepEqual(listPatientNotificationIds(data.db, patient.id), []);
  });

  it("empties the data of the patient's feed events, keeping their seq, type, time and patient, and touches no other patient's", () => {
    const patient = createTestPatient(data.db);
    const other = createTestPatient(data.db);
    assert.throws(() => emptyPatientFeedData(data.db, patient.id), /append-only/, 'not before the patient is erased');
    assert.equal(countPatientFeedEvents(data.db, patient.id), 1);
    markPatientErased(data.db, patient.id, '2026-12-01T10:00:00.000Z');
    emptyPatientFeedData(data.db, patient.id);
    assert.equal(countPatientFeedEvents(data.db, patient.id), 0);
    assert.deepEqual(
      changeEventsAfter(data.db, 0, 10, null).map((event) => [event.seq, event.type, event.patient_id, event.data === '{}']),
      [
        [1, 'patient.created', patient.id, true],
        [2, 'patient.created', other.id, false],
      ],
    );
  });

  it("empties the stored answers that name the patient, or the patient's uploaded document, keeping their keys taken", () => {
    const patient = createTestPatient(data.db);
    const other = createTestPatient(data.db);
    const document = { id: addDocument(data.db, data.dataDir, patient.id, Buffer.from('%PDF scan')), patient_id: patient.id };
    const answer = (key: string, operation: string, body: object) =>
      insertIdempotentAnswer(data.db, {
        idempotency_key: key,
        operation,
        fingerprint: `fingerprint-${key}`,
        status: 201,
        body: JSON.stringify(body),
        created_at: '2026-11-30T08:00:00.000Z',
        expires_at: '2026-12-01T08:00:00.000Z',
      });
    answer('book', 'createAppointment', { id: randomUUID(), patient_id: patient.id });
    answer('upload', 'uploadDocument', { id: document.id, filename: 'scan.pdf' });
    answer('theirs', 'createAppointment', { id: randomUUID(), patient_id: other.id });
    // A desk PC's command answered with its printout, which names the patient by number, not id.
    answer('desk', 'runDeskCommand', { exit_code: 0, stdout: `Patient ${patient.patient_number} Ada Lovelace created\n`, stderr: '' });
    const longer = `${patient.patient_number}7`;
    answer('desk-other', 'runDeskCommand', { exit_code: 0, stdout: `Patient ${longer} Ada Lovelace created\n`, stderr: '' });
    deletePatientIdempotentAnswers(data.db, patient);
    for (const key of ['book', 'upload', 'desk']) {
      const stored = findIdempotentAnswer(data.db, key);
      assert.deepEqual([stored?.fingerprint, stored?.body, stored?.expires_at], ['erased', '{}', '2026-12-01T08:00:00.000Z'], key);
    }
    assert.equal(findIdempotentAnswer(data.db, 'theirs')?.fingerprint, 'fingerprint-theirs');
    assert.equal(findIdempotentAnswer(data.db, 'desk-other')?.fingerprint, 'fingerprint-desk-other', 'a longer number is another patient');
  });

  it("deletes a document's row and names its file for deletion, once, until the file is gone", () => {
    const patient = createTestPatient(data.db);
    const document = { id: addDocument(data.db, data.dataDir, patient.id, Buffer.from('%PDF scan')), patient_id: patient.id };
    deleteDocumentRow(data.db, document, '2036-12-01T00:00:00.000Z');
    assert.equal(findDocument(data.db, document.id), undefined);
    // A second purge run that finds the file still named adds nothing.
    deleteDocumentRow(data.db, document, '2036-12-02T00:00:00.000Z');
    assert.deepEqual(listPurgedDocumentFiles(data.db), [
      { document_id: document.id, patient_id: patient.id, purged_at: '2036-12-01T00:00:00.000Z' },
    ]);
    forgetPurgedDocumentFile(data.db, document.id);
    assert.deepEqual(listPurgedDocumentFiles(data.db), []);
  });

  it('clears the fields given and deletes the row with its search words; its number is never given again', () => {
    const patient = createTestPatient(data.db, { notes: 'allergic to penicillin' });
    const seq = findPatient(data.db, patient.id)!.seq;
    clearPatientColumns(data.db, patient.id, { email: null, mobile: null });
    clearPatientColumns(data.db, patient.id, {});
    const cleared = findPatient(data.db, patient.id)!;
    assert.deepEqual([cleared.email, cleared.mobile, cleared.notes], [null, null, 'allergic to penicillin']);
    // The words it is found by go with the row, whether or not a restriction took them already.
    assert.ok(countOf(data.db, 'patient_phone_digits', 'patient_seq', seq) > 0, 'its phone digits are still stored');
    deletePatientRow(data.db, patient.id);
    assert.equal(findPatient(data.db, patient.id), undefined);
    assert.equal(countOf(data.db, 'patient_search_terms', 'patient_seq', seq), 0);
    assert.equal(countOf(data.db, 'patient_phone_digits', 'patient_seq', seq), 0);
    const next = createTestPatient(data.db);
    assert.notEqual(next.patient_number, patient.patient_number);
    assert.equal(findPatient(data.db, next.id)!.seq, seq + 1);
  });
});
