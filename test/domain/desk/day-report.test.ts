// src/domain/desk/day-report.ts: `clinic report day`, the end-of-day cash count (clinic-api-1.1.md; 1.2.md "The desk's corrections"; 1.3.md "Credit notes").
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { DAY_REPORT, readDayReport } from '../../../src/domain/desk/day-report.js';
import { CREATE_CREDIT_NOTE } from '../../../src/domain/invoices/credit-invoice.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone, setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * DAY_REPORT (`clinic report day`; clinic-api-1.1.md, clinic-api-1.2.md "The desk's
 * corrections", clinic-api-1.3.md "Credit notes"): one clinic day's money, net of refunds, in the
 * clinic currency, summed in cents, and one invoice.read per patient on it. The printout:
 * test/cli/commands/report.test.ts.
 */

/** Runs `work` with the program's clock at `iso`. */
function at<T>(iso: string, work: () => T): T {
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  try {
    return work();
  } finally {
    mock.timers.reset();
  }
}

/** Pays `amount` of `invoiceId` by `method` at `iso`; returns the payment's id. */
const payAt = (db: Db, iso: string, invoiceId: string, amount: string, method = 'cash') =>
  at(
    iso,
    () => recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount, method }) }).payment.payment_id,
  );

interface Given {
  ada: Patient;
  grace: Patient;
  chen: Patient;
}

/**
 * A Vienna clinic's 30 November 2026 (from 23:00 UTC the day before): Ada pays 30.10 in cash just
 * after midnight and is refunded 10.00 of it, Grace pays 50.20 by card and is credited 5.00, Chen
 * pays 20.00 in cash on an invoice in CHF. Ada also paid the evening before, and pays again at
 * midnight the day after: neither is on the day.
 */
function aViennaDay(db: Db): Given {
  setClinicTimeZone(db, 'Europe/Vienna');
  const [ada, grace, chen] = ['Ada', 'Grace', 'Chen'].map((first_name) => createTestPatient(db, { first_name }));
  const invoice = (patient: Patient, currency = 'EUR') => createTestInvoice(db, { patient_id: patient.id, currency }).id;
  const [adas, graces, chens] = [invoice(ada!), invoice(grace!), invoice(chen!, 'CHF')];
  payAt(db, '2026-11-29T22:59:59.999Z', adas!, '1.00');
  const adaPaid = payAt(db, '2026-11-29T23:00:00.000Z', adas!, '30.10');
  payAt(db, '2026-11-30T08:00:00.000Z', graces!, '50.20', 'card');
  at('2026-11-30T09:00:00.000Z', () =>
    performUseCase(REFUND_PAYMENT, db, { path: { payment_id: adaPaid }, body: { amount: '10.00', reason: 'paid twice' } }, DESK_USER),
  );
  at('2026-11-30T10:00:00.000Z', () =>
    performUseCase(CREATE_CREDIT_NOTE, db, { path: { invoice_id: graces }, body: { amount: '5.00', reason: 'goodwill' } }, DESK_USER),
  );
  payAt(db, '2026-11-30T11:00:00.000Z', chens!, '20.00');
  payAt(db, '2026-11-30T23:00:00.000Z', adas!, '2.00', 'bank');
  return { ada: ada!, grace: grace!, chen: chen! };
}

const invoiceRead = (patient: Patient) => ({ action: 'invoice.read', patient_id: patient.id, subject_type: 'invoice', subject_id: null });
const day = (date: string) => () => ({ query: { date } });

const scenarios: Scenario<Given>[] = [
  {
    title: "counts the clinic day's payments less its refunds, in cents, by method; credit notes and other currencies apart",
    given: aViennaDay,
    request: day('2026-11-30'),
    expect: ({ ada, grace, chen }) => ({
      result: {
        report: {
          date: '2026-11-30',
          time_zone: 'Europe/Vienna',
          currency: 'EUR',
          payments: [
            {
              patient_number: ada.patient_number,
              patient_name: 'Ada Lovelace',
              method: 'cash',
              amount: 30.1,
              created_at: '2026-11-29T23:00:00.000Z',
            },
            { patient_number: grace.patient_number, method: 'card', amount: 50.2 },
          ],
          refunds: [{ patient_number: ada.patient_number, method: 'cash', amount: 10 }],
          totals: { cash: 20.1, card: 50.2, bank: 0, other: 0 },
          total: 70.3,
          credit_notes: [{ patient_number: grace.patient_number, amount: 5, reason: 'goodwill' }],
        },
        otherCurrencies: [{ patient_number: chen.patient_number, amount: 20, currency: 'CHF' }],
        otherCurrencyRefunds: [],
        otherCurrencyCreditNotes: [],
      },
      audit: [invoiceRead(ada), invoiceRead(grace), invoiceRead(chen)],
      changes: [],
    }),
  },
  {
    title: 'reads the day as the desk types it',
    given: aViennaDay,
    request: day('30.11.2026'),
    expect: ({ ada, grace, chen }) => ({
      result: { report: { date: '2026-11-30', total: 70.3 } },
      audit: [invoiceRead(ada), invoiceRead(grace), invoiceRead(chen)],
      changes: [],
    }),
  },
  {
    title: 'counts a day of nothing as zero in every method, recording nobody',
    given: aViennaDay,
    request: day('2026-12-02'),
    expect: () => ({
      result: { report: { payments: [], refunds: [], credit_notes: [], totals: { cash: 0, card: 0, bank: 0, other: 0 }, total: 0 } },
      audit: [],
      changes: [],
    }),
  },
  {
    title: "keeps an erased patient's money on the day, named by number only",
    given: (db) => {
      const given = aViennaDay(db);
      setClinicRetention(db, 'AT', undefined);
      performUseCase(ERASE_PATIENT, db, { path: { patient_id: given.grace.id }, body: { dry_run: false } }, DESK_USER);
      return given;
    },
    request: day('2026-11-30'),
    expect: ({ ada, grace, chen }) => ({
      result: {
        report: {
          payments: [{ patient_name: 'Ada Lovelace' }, { patient_number: grace.patient_number, patient_name: null, amount: 50.2 }],
          credit_notes: [{ patient_number: grace.patient_number, patient_name: null }],
          total: 70.3,
        },
      },
      audit: [invoiceRead(ada), invoiceRead(grace), invoiceRead(chen)],
      changes: [],
    }),
  },
  {
    title: 'refuses a day that is not on the calendar (date_parsing)',
    given: aViennaDay,
    request: day('31.11.2026'),
    expect: () => ({ invalid: ['query.date'], types: ['date_parsing'] }),
  },
  {
    title: 'refuses while billing is off (403 MODULE_DISABLED)',
    given: (db) => {
      const given = aViennaDay(db);
      setModuleEnabled(db, 'billing', false);
      return given;
    },
    request: day('2026-11-30'),
    expect: () => ({ refused: 'MODULE_DISABLED', status: 403 }),
  },
  {
    title: 'refuses a scheduler, who sees no money (403 ROLE_FORBIDDEN)',
    given: aViennaDay,
    request: day('2026-11-30'),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios("the day's cash count (DAY_REPORT)", DAY_REPORT, scenarios);

describe('the clinic day of a report', () => {
  const data = useTestDatabase({ each: true });

  /**
   * The Vienna report of `date` after payments of 1.00, 2.00, 4.00 and 8.00 at `instants`: the
   * last moment before the day, its first, its last and the next day's first (UTC).
   */
  function viennaReportAcross(date: string, instants: [string, string, string, string]) {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    const invoice = createTestInvoice(data.db).id;
    instants.forEach((instant, i) => payAt(data.db, instant, invoice, ['1.00', '2.00', '4.00', '8.00'][i]!));
    return readDayReport(data.db, { date }).report;
  }

  it('is 23 hours long on the spring DST day: from midnight to midnight in clinic time', () => {
    const report = viennaReportAcross('2026-03-29', [
      '2026-03-28T22:59:59.999Z',
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T21:59:59.999Z',
      '2026-03-29T22:00:00.000Z',
    ]);
    assert.deepEqual([report.payments.map((payment) => payment.amount), report.total], [[2, 4], 6]);
  });

  it('is 25 hours long on the autumn one', () => {
    const report = viennaReportAcross('2026-10-25', [
      '2026-10-24T21:59:59.999Z',
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T22:59:59.999Z',
      '2026-10-25T23:00:00.000Z',
    ]);
    assert.equal(report.total, 6);
  });

  it("is today's in clinic time without a date: in Vienna it is already tomorrow at 23:30 UTC", () => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    assert.equal(readDayReport(data.db, {}, Date.parse('2026-11-30T23:30:00.000Z')).report.date, '2026-12-01');
    assert.equal(readDayReport(data.db, {}, Date.parse('2026-11-30T22:59:59.999Z')).report.date, '2026-11-30');
  });
});
