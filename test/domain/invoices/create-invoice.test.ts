import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { explainInvoiceList, findInvoice } from '../../../src/db/invoices.js';
import type { Db } from '../../../src/db/open-database.js';
import { findPatient } from '../../../src/db/patients.js';
import { writeSetting } from '../../../src/db/settings.js';
import { AppError, ValidationError } from '../../../src/errors.js';
import { CREATE_INVOICE, createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { listInvoices } from '../../../src/domain/invoices/list-invoices.js';
import { outstandingBalance } from '../../../src/domain/invoices/outstanding-balance.js';
import type { InvoiceDetail } from '../../../src/domain/invoices/read-invoice.js';
import { VOID_INVOICE } from '../../../src/domain/invoices/void-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { presentPatient } from '../../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { setClinicCurrency, setClinicTimeZone, setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { wallClockAt } from '../../../src/domain/validation/calendar.js';
import { untouchedInvoiceDetail } from '../../helpers/api-shapes.js';
import { buildInvoice, buildPatient, buildPayment, idempotencyHeader } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

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

/**
 * CREATE_INVOICE (POST /invoices, `clinic invoice create`), rule by rule (clinic-api-1.3.md,
 * "Scopes, audit, change feed, errors"). The wiring of each front end: the Invoice as the API
 * shows it, test/server/routes/invoices.test.ts; the desk's options, its date alone as midnight
 * and its printout, test/cli/commands/invoice.test.ts; what a patient owing in two currencies
 * is shown, test/domain/invoices/outstanding-balance.test.ts.
 */

/** The patient the invoice is for. */
interface InvoiceGiven {
  patientId: string;
}

/** A clinic in Vienna with a patient, and what `first` did next for them (invoices issued, paid, voided). */
const aPatient =
  (first: (db: Db, patientId: string) => void = () => {}) =>
  (db: Db): InvoiceGiven => {
    setClinicTimeZone(db, 'Europe/Vienna');
    const patientId = createPatient(db, buildPatient()).id;
    first(db, patientId);
    return { patientId };
  };

/** An invoice of 100.00 for the given patient (buildInvoice), with `fields` over it, under `key` if one is given. */
const issueRequest =
  (fields: Record<string, unknown> = {}, key?: string) =>
  (given: InvoiceGiven) => ({ header: idempotencyHeader(key), body: buildInvoice(given.patientId, fields) });

/** An invoice issued before the request, with `fields` over buildInvoice's, under `key` if one is given. */
const issueFirst = (db: Db, patientId: string, fields: Record<string, unknown>, key?: string) =>
  performUseCase(CREATE_INVOICE, db, issueRequest(fields, key)({ patientId }), DESK_USER);

/** A payment of all `invoice` asks, under `key` if one is given. */
const payWhole = (db: Db, invoice: { id: string; total: number }, key?: string) =>
  recordPayment(db, { path: { invoice_id: invoice.id }, headers: idempotencyHeader(key), body: buildPayment({ amount: invoice.total }) })
    .payment;

/** invoice.create of the invoice issued, and invoice.created with its number, total and status. */
const issueRecords = {
  audit: (invoice: InvoiceDetail) => [
    { action: 'invoice.create', patient_id: invoice.patient_id, subject_type: 'invoice', subject_id: invoice.id, detail: null },
  ],
  changes: (invoice: InvoiceDetail) => [
    {
      type: 'invoice.created',
      patient_id: invoice.patient_id,
      data: { invoice_id: invoice.id, invoice_number: invoice.invoice_number, total: invoice.total, status: 'issued' },
    },
  ],
};

/** Issued, with `result`'s fields, and its two records. */
const issued = (result: Record<string, unknown>): Outcome => ({ result, ...issueRecords });

const invoiceScenarios: Scenario<InvoiceGiven>[] = [
  {
    title: 'issues an invoice: issued, nothing paid, in the clinic currency, issued now, numbered first of its year',
    given: aPatient(),
    request: issueRequest({ total: '120.50' }),
    expect: (given) =>
      issued({
        invoice_number: new RegExp(`^INV-${wallClockAt('Europe/Vienna', Date.now()).year}-000001$`),
        patient_id: given.patientId,
        status: 'issued',
        currency: 'EUR',
        total: 120.5,
        amount_paid: 0,
        balance: 120.5,
        issued_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
        patient_number: 'P-000001',
        patient_first_name: 'Ada',
        patient_last_name: 'Lovelace',
        ...untouchedInvoiceDetail(),
      }),
  },
  {
    title: 'numbers the next invoice of the same year after the last',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { issued_at: '2024-06-01T10:00:00Z' })),
    request: issueRequest({ issued_at: '2024-07-01T10:00:00Z' }),
    expect: () => issued({ invoice_number: 'INV-2024-000002', issued_at: '2024-07-01T10:00:00.000Z' }),
  },
  {
    title: 'starts a series per year of issue in the clinic time zone: 23:30 UTC on New Year’s Eve is next year in Vienna',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { issued_at: '2024-06-01T10:00:00Z' })),
    request: issueRequest({ issued_at: '2024-12-31T23:30:00Z' }),
    expect: () => issued({ invoice_number: 'INV-2025-000001', issued_at: '2024-12-31T23:30:00.000Z' }),
  },
  {
    title: 'reads an issued_at without an offset in clinic time',
    given: aPatient(),
    request: issueRequest({ issued_at: '2025-01-01T00:30' }),
    expect: () => issued({ invoice_number: 'INV-2025-000001', issued_at: '2024-12-31T23:30:00.000Z' }),
  },
  {
    title: 'never hands out a number again, even when the last invoice of its year was removed by hand',
    given: aPatient((db, patientId) => {
      const last = issueFirst(db, patientId, { issued_at: '2024-06-01T10:00:00Z' });
      db.prepare('DELETE FROM invoices WHERE id = ?').run(last.id);
    }),
    request: issueRequest({ issued_at: '2024-07-01T10:00:00Z' }),
    expect: () => issued({ invoice_number: 'INV-2024-000002' }),
  },
  {
    title: 'takes the largest total, and a total with fraction zeros beyond two places',
    given: aPatient(),
    request: issueRequest({ total: '99999999.990' }),
    expect: () => issued({ total: 99999999.99, balance: 99999999.99 }),
  },
  // Currencies.
  {
    title: 'issues in the clinic currency as set when it is issued',
    given: aPatient((db) => void setClinicCurrency(db, 'CHF')),
    request: issueRequest(),
    expect: () => issued({ currency: 'CHF' }),
  },
  {
    title: 'issues in the currency asked for',
    given: aPatient(),
    request: issueRequest({ currency: 'USD' }),
    expect: () => issued({ currency: 'USD', total: 100 }),
  },
  {
    title: 'issues a second open invoice in the currency the patient owes in',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { total: '5.00' })),
    request: issueRequest({ currency: 'EUR' }),
    expect: () => issued({ invoice_number: /-000002$/, currency: 'EUR' }),
  },
  {
    title: 'refuses an invoice in another currency while one is owed, naming it (422 INVOICE_CURRENCY_MISMATCH)',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { total: '5.00' })),
    request: issueRequest({ currency: 'USD' }),
    expect: () => ({
      refused: 'INVOICE_CURRENCY_MISMATCH',
      status: 422,
      message: /^This patient has open invoices in EUR; a new invoice must use EUR until they are paid\.$/,
    }),
  },
  {
    title: 'takes another currency once the open invoices are paid',
    given: aPatient((db, patientId) => void payWhole(db, issueFirst(db, patientId, { total: '5.00' }))),
    request: issueRequest({ currency: 'USD' }),
    expect: () => issued({ currency: 'USD' }),
  },
  {
    title: 'takes another currency once the open invoice is void: it asks nothing',
    given: aPatient((db, patientId) => {
      const open = issueFirst(db, patientId, { total: '5.00' });
      performUseCase(VOID_INVOICE, db, { path: { invoice_id: open.id }, body: { reason: 'wrong patient' } }, DESK_USER);
    }),
    request: issueRequest({ currency: 'USD' }),
    expect: () => issued({ currency: 'USD' }),
  },
  ...(
    [
      ['refuses a third currency to a patient a refund left owing in two, naming both', 'CHF', undefined],
      ['still invoices a patient owing in two in either: a refund must not stop the billing', 'JPY', 'JPY'],
    ] as const
  ).map(([title, currency, takes]): Scenario<InvoiceGiven> => ({
    title,
    // 40.00 EUR paid, then 4000 JPY issued while nothing was open, then the EUR payment refunded.
    given: aPatient((db, patientId) => {
      const payment = payWhole(db, issueFirst(db, patientId, { total: '40.00' }));
      issueFirst(db, patientId, { total: '4000.00', currency: 'JPY' });
      performUseCase(REFUND_PAYMENT, db, { path: { payment_id: payment.payment_id }, body: { reason: 'charged twice' } }, DESK_USER);
    }),
    request: issueRequest({ currency }),
    expect: () =>
      takes === undefined
        ? { refused: 'INVOICE_CURRENCY_MISMATCH', status: 422, message: /in EUR and JPY; a new invoice must use one of them/ }
        : issued({ currency: takes }),
  })),
  // Off the schema, and what the request names.
  {
    title: 'refuses an invoice of nothing: patient_id and total are required',
    given: aPatient(),
    request: () => ({ body: {} }),
    expect: () => ({ invalid: ['body.patient_id', 'body.total'], types: ['missing', 'missing'] }),
  },
  ...(
    [
      ['zero', 0, 'greater_than'],
      ['three fraction digits', '0.001', 'decimal_max_places'],
      ['nine integer digits', 123456789, 'decimal_whole_digits'],
      ['exponent notation', '1e3', 'decimal_parsing'],
    ] as const
  ).map(([name, total, type]): Scenario<InvoiceGiven> => ({
    title: `refuses a total of ${name} (${type})`,
    given: aPatient(),
    request: issueRequest({ total }),
    expect: () => ({ invalid: ['body.total'], types: [type] }),
  })),
  {
    title: 'reports every failing field at once, in the order of the fields',
    given: aPatient(),
    request: () => ({ body: { patient_id: 'P-000001', total: -1, currency: 'eur', issued_at: 'soon' } }),
    expect: () => ({
      invalid: ['body.patient_id', 'body.total', 'body.currency', 'body.issued_at'],
      types: ['uuid_parsing', 'greater_than', 'string_pattern_mismatch', 'datetime_parsing'],
    }),
  },
  {
    title: 'refuses a date alone as issued_at: only the desk reads one as midnight (withIssuedDateAsMidnight)',
    given: aPatient(),
    request: issueRequest({ issued_at: '2023-03-01' }),
    expect: () => ({ invalid: ['body.issued_at'], types: ['datetime_parsing'] }),
  },
  {
    title: 'refuses an unknown patient (422 PATIENT_NOT_FOUND)',
    given: aPatient(),
    request: issueRequest({ patient_id: '00000000-0000-4000-8000-000000000000' }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 422 }),
  },
  // The module and the roles.
  {
    title: 'refuses while billing is off (403 MODULE_DISABLED)',
    given: aPatient((db) => void setModuleEnabled(db, 'billing', false)),
    request: issueRequest(),
    expect: () => ({ refused: 'MODULE_DISABLED', status: 403, message: /billing/ }),
  },
  {
    title: 'issues while payments are off: invoicing needs billing only',
    given: aPatient((db) => void setModuleEnabled(db, 'payments', false)),
    request: issueRequest(),
    expect: () => issued({ status: 'issued' }),
  },
  {
    title: 'issues for a person at reception, who takes money',
    given: aPatient(),
    request: issueRequest(),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => issued({ status: 'issued' }),
  },
  {
    title: 'refuses practitioners and schedulers: admin, reception and billing invoice (403 ROLE_FORBIDDEN)',
    given: aPatient(),
    request: issueRequest(),
    caller: { ...DESK_USER, roles: ['practitioner', 'scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
  // Idempotency-Key (1.3.0).
  {
    title: 'answers a request repeated with its Idempotency-Key, the total written otherwise, as the first time, and records nothing',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { total: 120.5 }, 'invoice-1')),
    request: issueRequest({ total: '120.50' }, 'invoice-1'),
    expect: () => ({ result: { invoice_number: /-000001$/, total: 120.5 }, audit: [], changes: [] }),
  },
  {
    title: 'refuses the key of an invoice for another request (422 IDEMPOTENCY_KEY_REUSED)',
    given: aPatient((db, patientId) => void issueFirst(db, patientId, { total: 120.5 }, 'invoice-1')),
    request: issueRequest({ total: '120.51' }, 'invoice-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: "refuses a payment's key: one key space, and a payment keeps its key for ever (422 IDEMPOTENCY_KEY_REUSED)",
    given: aPatient((db, patientId) => void payWhole(db, issueFirst(db, patientId, { total: '5.00' }), 'pay-1')),
    request: issueRequest({}, 'pay-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'refuses a key with a space in it at the header',
    given: aPatient(),
    request: issueRequest({}, 'invoice 1'),
    expect: () => ({ invalid: ['header.idempotency-key'], types: ['string_pattern_mismatch'] }),
  },
];

describeScenarios('issuing an invoice (CREATE_INVOICE)', CREATE_INVOICE, invoiceScenarios);
