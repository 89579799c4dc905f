import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { explainInvoiceList, findInvoice } from '../../../src/db/invoices.js';
import { findPatient } from '../../../src/db/patients.js';
import { writeSetting } from '../../../src/db/settings.js';
import { AppError, ValidationError } from '../../../src/errors.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { listInvoices } from '../../../src/domain/invoices/list-invoices.js';
import { outstandingBalance } from '../../../src/domain/invoices/outstanding-balance.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { presentPatient } from '../../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildInvoice, buildPatient, buildPayment } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

/** The issues a call was refused with, as [type, loc] pairs. */
function issuesOf(call: () => unknown): [string, string][] {
  try {
    call();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((i) => [i.type, i.loc.join('.')]);
    throw error;
  }
  assert.fail('expected a ValidationError');
}

function codeOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  assert.fail('expected an AppError');
}

describe('invoices (domain)', () => {
  const data = useTestDatabase();
  let patientId: string;
  before(() => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    patientId = createPatient(data.db, buildPatient()).id;
  });

  it('issues an invoice with status issued, nothing paid, the clinic currency and now', () => {
    const before = new Date().toISOString();
    const invoice = createInvoice(data.db, buildInvoice(patientId, { total: '120.50' }));
    // As GET /invoices/{invoice_id} gives it (POST /invoices answers so, 1.3.0).
    assert.deepEqual(Object.keys(invoice), [
      'id',
      'invoice_number',
      'patient_id',
      'status',
      'currency',
      'total',
      'amount_paid',
      'balance',
      'issued_at',
      'patient_number',
      'patient_first_name',
      'patient_last_name',
      'payments',
      'refunds',
      'voided_at',
      'void_reason',
      'amount_credited',
      'credit_notes',
    ]);
    assert.equal(invoice.status, 'issued');
    assert.equal(invoice.currency, 'EUR');
    assert.equal(invoice.total, 120.5);
    assert.equal(invoice.amount_paid, 0);
    assert.equal(invoice.balance, 120.5);
    assert.ok(invoice.issued_at! >= before && invoice.issued_at! <= new Date().toISOString());
    assert.equal(findInvoice(data.db, invoice.id)?.total_cents, 12050);
  });

  it('numbers invoices per year of issue, in the clinic time zone, and never reuses a number', () => {
    const a = createInvoice(data.db, buildInvoice(patientId, { issued_at: '2024-06-01T10:00:00Z' }));
    const b = createInvoice(data.db, buildInvoice(patientId, { issued_at: '2024-07-01T10:00:00Z' }));
    // 23:30 UTC on New Year's Eve is already 2025 in Vienna.
    const c = createInvoice(data.db, buildInvoice(patientId, { issued_at: '2024-12-31T23:30:00Z' }));
    assert.deepEqual([a.invoice_number, b.invoice_number, c.invoice_number], ['INV-2024-000001', 'INV-2024-000002', 'INV-2025-000001']);
    // Even if the newest invoice were removed by hand, its number is not handed out again.
    data.db.prepare('DELETE FROM invoices WHERE id = ?').run(b.id);
    const d = createInvoice(data.db, buildInvoice(patientId, { issued_at: '2024-08-01T10:00:00Z' }));
    assert.equal(d.invoice_number, 'INV-2024-000003');
  });

  it('reads --issued-at as a date alone as midnight clinic time', () => {
    const invoice = createInvoice(data.db, buildInvoice(patientId, { issued_at: '2023-03-01' }));
    assert.equal(invoice.issued_at, '2023-02-28T23:00:00.000Z');
    assert.equal(invoice.invoice_number, 'INV-2023-000001');
  });

  it('uses the clinic currency setting and accepts an explicit one', () => {
    const other = createPatient(data.db, buildPatient()).id;
    writeSetting(data.db, 'currency', 'CHF');
    try {
      assert.equal(createInvoice(data.db, buildInvoice(other)).currency, 'CHF');
    } finally {
      writeSetting(data.db, 'currency', 'EUR');
    }
    const third = createPatient(data.db, buildPatient()).id;
    assert.equal(createInvoice(data.db, buildInvoice(third, { currency: 'USD' })).currency, 'USD');
  });

  it("keeps a patient's open invoices in one currency", () => {
    const patient = createPatient(data.db, buildPatient()).id;
    const first = createInvoice(data.db, buildInvoice(patient, { total: 5 }));
    assert.equal(
      codeOf(() => createInvoice(data.db, buildInvoice(patient, { currency: 'USD' }))),
      'INVOICE_CURRENCY_MISMATCH',
    );
    recordPayment(data.db, { path: { invoice_id: first.id }, headers: {}, body: buildPayment({ amount: 5 }) });
    assert.equal(createInvoice(data.db, buildInvoice(patient, { currency: 'USD' })).currency, 'USD');
  });

  it('refuses an unknown patient with 422 PATIENT_NOT_FOUND', () => {
    try {
      createInvoice(data.db, buildInvoice('00000000-0000-4000-8000-000000000000'));
      assert.fail('expected a refusal');
    } catch (error) {
      assert.ok(error instanceof AppError);
      assert.deepEqual([error.status, error.code], [422, 'PATIENT_NOT_FOUND']);
    }
  });

  const totalCases: [string, unknown, string | null][] = [
    ['zero', 0, 'greater_than'],
    ['a negative total', -1, 'greater_than'],
    ['three fraction digits', 0.001, 'decimal_max_places'],
    ['nine integer digits', 123456789, 'decimal_whole_digits'],
    ['exponent notation', '1e3', 'decimal_parsing'],
    ['an empty string', '', 'decimal_parsing'],
    ['a boolean', true, 'decimal_parsing'],
    ['null', null, 'decimal_parsing'],
    ['the largest total', '99999999.99', null],
    ['trailing fraction zeros beyond two places', '1.500', null],
  ];
  for (const [name, total, type] of totalCases) {
    it(`${type ? 'refuses' : 'accepts'} ${name} as total`, () => {
      const input = buildInvoice(createPatient(data.db, buildPatient()).id, { total });
      if (type === null) assert.equal(typeof createInvoice(data.db, input).total, 'number');
      else
        assert.deepEqual(
          issuesOf(() => createInvoice(data.db, input)),
          [[type, 'body.total']],
        );
    });
  }

  it('reports every failing field of an invoice at once', () => {
    assert.deepEqual(
      issuesOf(() => createInvoice(data.db, { patient_id: 'x', currency: 'eur', issued_at: 'soon' })),
      [
        ['uuid_parsing', 'body.patient_id'],
        ['missing', 'body.total'],
        ['string_pattern_mismatch', 'body.currency'],
        ['datetime_parsing', 'body.issued_at'],
      ],
    );
  });
});

describe('listing invoices (domain)', () => {
  const data = useTestDatabase();

  it('lists newest first, ties in creation order newest first', () => {
    const patient = createPatient(data.db, buildPatient()).id;
    const same = '2026-01-01T09:00:00.000Z';
    const old = createInvoice(data.db, buildInvoice(patient, { issued_at: '2025-01-01T09:00:00Z' }));
    const tieA = createInvoice(data.db, buildInvoice(patient, { issued_at: same }));
    const tieB = createInvoice(data.db, buildInvoice(patient, { issued_at: same }));
    const newest = createInvoice(data.db, buildInvoice(patient, { issued_at: '2026-06-01T09:00:00Z' }));
    assert.deepEqual(
      listInvoices(data.db, { patient_id: patient }).items.map((i) => i.id),
      [newest.id, tieB.id, tieA.id, old.id],
    );
  });

  it('filters by patient and by balance', () => {
    const patient = createPatient(data.db, buildPatient()).id;
    const other = createPatient(data.db, buildPatient()).id;
    const open = createInvoice(data.db, buildInvoice(patient, { total: 10 }));
    const paid = createInvoice(data.db, buildInvoice(patient, { total: 10 }));
    createInvoice(data.db, buildInvoice(other));
    recordPayment(data.db, { path: { invoice_id: paid.id }, headers: {}, body: buildPayment({ amount: 10 }) });
    assert.deepEqual(new Set(listInvoices(data.db, { patient_id: patient }).items.map((i) => i.id)), new Set([open.id, paid.id]));
    assert.deepEqual(
      listInvoices(data.db, { patient_id: patient, unpaid: 'true' }).items.map((i) => i.id),
      [open.id],
    );
    assert.ok(listInvoices(data.db, { unpaid: '1' }).items.every((i) => i.balance > 0));
    assert.ok(listInvoices(data.db, {}).items.some((i) => i.id === paid.id));
    assert.deepEqual(listInvoices(data.db, { patient_id: '00000000-0000-4000-8000-000000000000' }).items, []);
  });

  for (const filter of [
    { patientId: null, unpaid: false, index: 'invoices_by_issued_at' },
    { patientId: null, unpaid: true, index: 'invoices_open_by_issued_at' },
    { patientId: 'p', unpaid: false, index: 'invoices_by_patient' },
    { patientId: 'p', unpaid: true, index: 'invoices_by_patient' },
  ]) {
    it(`reads ${filter.patientId ? "one patient's" : 'all'} ${filter.unpaid ? 'open ' : ''}invoices from ${filter.index}, without sorting`, () => {
      const plan = explainInvoiceList(data.db, filter).join('\n');
      assert.match(plan, new RegExp(`USING (COVERING )?INDEX ${filter.index}\\b`));
      assert.doesNotMatch(plan, /TEMP B-TREE/);
      assert.doesNotMatch(plan, /SCAN invoices$/m);
    });
  }
});

describe('outstanding balance', () => {
  const data = useTestDatabase();

  const presented = (id: string) => presentPatient(findPatient(data.db, id)!, outstandingBalance(data.db, id));

  it('is "0" with no currency for a new patient', () => {
    const patient = createPatient(data.db, buildPatient());
    assert.equal(patient.outstanding_balance, '0');
    assert.equal(patient.outstanding_currency, null);
  });

  it('sums the open balances and returns to "0" and null once all are paid', () => {
    const id = createPatient(data.db, buildPatient()).id;
    const a = createInvoice(data.db, buildInvoice(id, { total: '100.25' }));
    const b = createInvoice(data.db, buildInvoice(id, { total: '30.25' }));
    recordPayment(data.db, { path: { invoice_id: a.id }, headers: {}, body: buildPayment({ amount: '0.50' }) });
    assert.deepEqual([presented(id).outstanding_balance, presented(id).outstanding_currency], ['130.00', 'EUR']);
    recordPayment(data.db, { path: { invoice_id: a.id }, headers: {}, body: buildPayment({ amount: '99.75' }) });
    recordPayment(data.db, { path: { invoice_id: b.id }, headers: {}, body: buildPayment({ amount: '30.25' }) });
    assert.deepEqual([presented(id).outstanding_balance, presented(id).outstanding_currency], ['0', null]);
  });

  it("counts only the patient's own invoices", () => {
    const id = createPatient(data.db, buildPatient()).id;
    const other = createPatient(data.db, buildPatient()).id;
    createInvoice(data.db, buildInvoice(other, { total: 7 }));
    assert.equal(presented(id).outstanding_balance, '0');
    assert.equal(presented(other).outstanding_balance, '7.00');
  });
});
