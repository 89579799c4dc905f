import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { findPatient } from '../../../src/db/patients.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import {
  addYears,
  clinicDate,
  ERASED_COLUMNS,
  erasureItems,
  erasureSummary,
  isHeld,
  type ErasureItem,
} from '../../../src/domain/retention/erasure-plan.js';
import { clinicRetention, setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPayment, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';

// What a patient's erasure does with each thing kept of them (clinic-api-1.3.md, "Retention",
// "Erasure"): the specification's table applied. The erasure itself, its dry run and the purges
// after it: erase-patient.test.ts.

const VIENNA = 'Europe/Vienna';
const NOW = '2026-11-30T10:00:00.000Z';

/** Sets the program's clock (Date) to `iso`. */
function at(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

describe('the dates of retention', () => {
  it('keep the same day years later, 29 February the 28th in a year without it', () => {
    const cases: [string, number, string][] = [
      ['2026-03-10', 10, '2036-03-10'],
      ['2026-12-31', 7, '2033-12-31'],
      ['2024-02-29', 1, '2025-02-28'],
      ['2024-02-29', 4, '2028-02-29'],
      ['2024-02-29', 30, '2054-02-28'],
    ];
    for (const [date, years, expected] of cases) assert.equal(addYears(date, years), expected, `${date} + ${years}`);
  });

  it("count an instant on the clinic's day, which begins at its local midnight, clocks going forward or back", () => {
    const cases: [string, string][] = [
      ['2026-03-28T22:59:59.999Z', '2026-03-28'],
      ['2026-03-28T23:00:00.000Z', '2026-03-29'],
      ['2026-03-29T21:59:59.999Z', '2026-03-29'],
      ['2026-03-29T22:00:00.000Z', '2026-03-30'],
      ['2026-10-24T22:00:00.000Z', '2026-10-25'],
      ['2026-12-31T23:30:00.000Z', '2027-01-01'],
    ];
    for (const [instant, day] of cases) assert.equal(clinicDate(instant, VIENNA), day, instant);
    assert.equal(clinicDate('2026-12-31T23:30:00.000Z', 'UTC'), '2026-12-31');
  });

  it('hold an appointment arrived or completed, or begun by now while booked or of a free string', () => {
    const cases: [string, string, boolean][] = [
      ['completed', '2027-01-01T09:00:00.000Z', true],
      ['arrived', '2027-01-01T09:00:00.000Z', true],
      ['booked', NOW, true],
      ['booked', '2026-11-30T10:00:00.001Z', false],
      ['Kontrolle', '2026-11-29T10:00:00.000Z', true],
      ['cancelled', '2026-01-01T09:00:00.000Z', false],
      ['no_show', '2026-01-01T09:00:00.000Z', false],
    ];
    for (const [status, start_at, held] of cases) assert.equal(isHeld({ status, start_at }, NOW), held, `${status} at ${start_at}`);
  });
});

describe('erasureItems', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());

  /**
   * A patient of a clinic in Vienna: a completed visit on 10.03.2026, a future booking, an x-ray
   * of 01.04.2026, an invoice of 2026 never paid and one paid on the last evening of 2029 (2030
   * in Vienna). Returns the patient's id.
   */
  function patientWithHistory(db: Db): string {
    at('2026-01-05T09:00:00Z');
    setClinicTimeZone(db, VIENNA);
    const patient = createTestPatient(db, { gender: 'w', notes: 'Penicillin-Allergie', occupation: 'Lehrerin' });
    const book = (start: string, status: string) =>
      bookAppointment(db, { patient_id: patient.id, start_at: start, end_at: start.replace('T09', 'T10'), status }, 'api');
    book('2026-03-10T09:00:00Z', 'completed');
    book('2027-02-01T09:00:00Z', 'booked');
    at('2026-04-01T08:00:00Z');
    addDocument(db, data.dataDir, patient.id, Buffer.from('x-ray'));
    createInvoice(db, { patient_id: patient.id, total: '80.00' });
    const late = createInvoice(db, { patient_id: patient.id, total: '50.00' });
    at('2029-12-31T23:30:00Z');
    recordPayment(db, { path: { invoice_id: late.id }, headers: {}, body: buildPayment({ amount: '50.00' }) });
    return patient.id;
  }

  const planOf = (db: Db, patientId: string, country: 'AT' | 'DE') => {
    setClinicRetention(db, country, undefined);
    return erasureItems(db, findPatient(db, patientId)!, clinicRetention(db)!, NOW, VIENNA);
  };
  const decisions = (items: readonly ErasureItem[], category: string) =>
    items.filter((item) => item.category === category).map((item) => [item.kind, item.decision, item.rule, item.keep_until]);

  it('keeps, in Austria, each held entry from its own day and each invoice from the end of the clinic year of its latest payment', () => {
    const items = planOf(data.db, patientWithHistory(data.db), 'AT');
    assert.deepEqual(decisions(items, 'appointments'), [
      ['appointment', 'keep_until', 'AT-RECORDS', '2036-03-10'],
      ['appointment', 'erase_now', null, null],
    ]);
    assert.deepEqual(decisions(items, 'documents'), [['document', 'keep_until', 'AT-RECORDS', '2036-04-01']]);
    assert.deepEqual(decisions(items, 'billing'), [
      ['invoice', 'keep_until', 'AT-BILLING', '2033-12-31'],
      ['invoice', 'keep_until', 'AT-BILLING', '2037-12-31'],
      ['payment', 'keep_until', 'AT-BILLING', '2037-12-31'],
    ]);
    assert.deepEqual(items.at(-1), {
      category: 'audit',
      kind: 'trail',
      id: null,
      number: null,
      decision: 'keep',
      rule: 'AUDIT',
      keep_until: null,
    });
  });

  it('keeps, in Germany, every record from the end of treatment: the last held visit or record document', () => {
    const items = planOf(data.db, patientWithHistory(data.db), 'DE');
    assert.deepEqual(decisions(items, 'appointments')[0], ['appointment', 'keep_until', 'DE-RECORDS', '2036-04-01']);
    assert.deepEqual(decisions(items, 'documents'), [['document', 'keep_until', 'DE-RECORDS', '2036-04-01']]);
    assert.deepEqual(
      decisions(items, 'billing').map((decision) => decision[3]),
      ['2034-12-31', '2038-12-31', '2038-12-31'],
    );
  });

  it('keeps the contact fields the table names with the longest-kept item, under its rule, and erases the others now', () => {
    const items = planOf(data.db, patientWithHistory(data.db), 'AT');
    const contact = new Map(
      items.filter((item) => item.category === 'contact').map((item) => [item.id, [item.decision, item.rule, item.keep_until]]),
    );
    for (const field of ['first_name', 'last_name', 'gender', 'notes']) {
      assert.deepEqual(contact.get(field), ['keep_until', 'AT-BILLING', '2037-12-31'], field);
    }
    for (const field of ['email', 'mobile', 'occupation']) assert.deepEqual(contact.get(field), ['erase_now', null, null], field);
    assert.equal(contact.has('phone'), false, 'a field the patient never had is no item');
    for (const field of ['email', 'mobile', 'phone', 'occupation']) assert.equal(ERASED_COLUMNS[field], null, field);
    for (const field of ['first_name', 'date_of_birth', 'address_city', 'insurance_number', 'notes', 'gp_name']) {
      assert.equal(field in ERASED_COLUMNS, false, `${field} is kept`);
    }
  });

  it('erases everything now of a patient of whom no rule keeps anything, but the audit trail', () => {
    at('2026-01-05T09:00:00Z');
    const patient = createTestPatient(data.db);
    bookAppointment(
      data.db,
      { patient_id: patient.id, start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T10:00:00Z', status: 'cancelled' },
      'api',
    );
    const items = planOf(data.db, patient.id, 'AT');
    assert.deepEqual(
      [...new Set(items.map((item) => `${item.category} ${item.decision}`))],
      ['contact erase_now', 'appointments erase_now', 'change_feed erase_now', 'audit keep'],
    );
    assert.deepEqual(
      erasureSummary(data.db, patient.id, items).map((group) => [group.category, group.count]),
      [
        ['contact', items.filter((item) => item.category === 'contact').length],
        ['appointments', 1],
        ['change_feed', 2],
        ['audit', 0],
      ],
    );
  });
});
