import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { setClinicCurrency } from '../../../src/domain/settings.js';
import { buildInvoice, buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

// Issue 39, M3: a refund can leave a patient owing in two currencies, and 1.0.0's single
// outstanding_balance showed one of them. Black box over HTTP; invoices are issued on the test's
// own connection, as `clinic invoice create` issues them beside the server.

/** What GET /patients/{id} and a search's PatientSummary say the patient owes. */
interface Owed {
  outstanding_balance: string;
  outstanding_currency: string | null;
  outstanding_balances: { currency: string; amount: string }[];
}

const owedOf = ({ outstanding_balance, outstanding_currency, outstanding_balances }: Owed): Owed => ({
  outstanding_balance,
  outstanding_currency,
  outstanding_balances,
});

describe('M3: a patient owing in two currencies (issue 39)', () => {
  const server = useTestServer();

  async function newPatient(lastName: string): Promise<Patient> {
    const created = await server.request<Patient>('POST', '/patients', { body: buildPatient({ last_name: lastName }) });
    assert.equal(created.status, 201);
    return created.body;
  }

  /** Pays an invoice whole over the API; the payment's id. */
  async function payWhole(invoiceId: string, amount: string): Promise<string> {
    const paid = await server.request('POST', `/invoices/${invoiceId}/payments`, { body: { amount, method: 'cash' } });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.invoice_status, 'paid');
    return paid.body.payment_id as string;
  }

  /** What the patient owes, read back both ways: by id, and found by its last name. */
  async function owed(patient: Patient): Promise<Owed> {
    const read = await server.request<Owed & Patient>('GET', `/patients/${patient.id}`);
    assert.equal(read.status, 200);
    const found = await server.request<(Owed & Patient)[]>('GET', `/patients?q=${encodeURIComponent(String(patient.last_name))}`);
    assert.equal(found.status, 200);
    const summary = found.body.find((item) => item.id === patient.id);
    assert.ok(summary, 'found by its name');
    assert.deepEqual(owedOf(summary), owedOf(read.body), 'the search says what the record says');
    return owedOf(read.body);
  }

  /**
   * The fixture's story (test/fixtures/release-1.2.0): 40.00 EUR paid, then 4000.00 JPY issued
   * (nothing was open), then the EUR payment refunded whole, which reopens its invoice.
   */
  async function owingInEuroAndYen(lastName: string, issued: { eur?: string; jpy?: string } = {}): Promise<Patient> {
    const patient = await newPatient(lastName);
    const euro = createInvoice(server.db, buildInvoice(patient.id, { total: '40.00', ...(issued.eur ? { issued_at: issued.eur } : {}) }));
    const payment = await payWhole(euro.id, '40.00');
    createInvoice(
      server.db,
      buildInvoice(patient.id, { total: '4000.00', currency: 'JPY', ...(issued.jpy ? { issued_at: issued.jpy } : {}) }),
    );
    const refund = await server.request('POST', `/payments/${payment}/refunds`, { body: { reason: 'Doppelt kassiert' } });
    assert.equal(refund.status, 201, refund.text);
    assert.equal(refund.body.invoice_status, 'issued');
    return patient;
  }

  it('lists every currency owed in outstanding_balances, by currency, appended after version', async () => {
    const patient = await owingInEuroAndYen('Zweiwaehrung');
    assert.deepEqual(await owed(patient), {
      outstanding_balance: '40.00',
      outstanding_currency: 'EUR',
      outstanding_balances: [
        { currency: 'EUR', amount: '40.00' },
        { currency: 'JPY', amount: '4000.00' },
      ],
    });
    const read = await server.request('GET', `/patients/${patient.id}`);
    assert.deepEqual(
      Object.keys(read.body).slice(-3),
      ['version', 'outstanding_balances', 'erased_at'],
      "after the fields of 1.2.0, then 1.3.0's",
    );
    const found = await server.request('GET', '/patients?q=Zweiwaehrung');
    assert.deepEqual(Object.keys(found.body[0]).slice(-3), ['outstanding_balance', 'outstanding_currency', 'outstanding_balances']);
  });

  it("1.0.0's two fields name the clinic currency's sum while it is owed, else the currency of the oldest open invoice", async () => {
    // The yen invoice is the older one here; the euro invoice was issued later.
    const patient = await owingInEuroAndYen('Aeltesteyen', { jpy: '2026-01-15T09:00', eur: '2026-03-01T09:00' });
    const headline = async () => {
      const { outstanding_balance, outstanding_currency } = await owed(patient);
      return [outstanding_balance, outstanding_currency];
    };
    assert.deepEqual(await headline(), ['40.00', 'EUR'], 'owed in the clinic currency (EUR): its sum');
    try {
      setClinicCurrency(server.db, 'JPY');
      assert.deepEqual(await headline(), ['4000.00', 'JPY'], 'the clinic currency decides, not the order of codes');
      setClinicCurrency(server.db, 'CHF');
      assert.deepEqual(await headline(), ['4000.00', 'JPY'], 'owed in neither: the oldest open invoice, the yen one');
      assert.deepEqual(
        (await owed(patient)).outstanding_balances.map((balance) => balance.currency),
        ['EUR', 'JPY'],
        'every currency stays listed',
      );
    } finally {
      setClinicCurrency(server.db, 'EUR');
    }
  });

  it('one currency: exactly as before, and [] with "0" and null while nothing is owed', async () => {
    const patient = await newPatient('Einwaehrung');
    assert.deepEqual(await owed(patient), { outstanding_balance: '0', outstanding_currency: null, outstanding_balances: [] });
    const first = createInvoice(server.db, buildInvoice(patient.id, { total: '100.25' }));
    createInvoice(server.db, buildInvoice(patient.id, { total: '30.25' }));
    assert.deepEqual(await owed(patient), {
      outstanding_balance: '130.50',
      outstanding_currency: 'EUR',
      outstanding_balances: [{ currency: 'EUR', amount: '130.50' }],
    });
    await payWhole(first.id, '100.25');
    assert.deepEqual((await owed(patient)).outstanding_balances, [{ currency: 'EUR', amount: '30.25' }]);
  });

  it('still refuses an invoice in a second currency while another is open, and a third to one owing in two', async () => {
    const single = await newPatient('Nureuro');
    createInvoice(server.db, buildInvoice(single.id, { total: '10.00' }));
    assert.throws(
      () => createInvoice(server.db, buildInvoice(single.id, { total: '10.00', currency: 'JPY' })),
      (error: { code?: string; message?: string }) =>
        error.code === 'INVOICE_CURRENCY_MISMATCH' &&
        error.message === 'This patient has open invoices in EUR; a new invoice must use EUR until they are paid.',
    );

    const both = await owingInEuroAndYen('Dreiwaehrung');
    assert.throws(
      () => createInvoice(server.db, buildInvoice(both.id, { total: '10.00', currency: 'CHF' })),
      (error: { code?: string; message?: string }) =>
        error.code === 'INVOICE_CURRENCY_MISMATCH' && /in EUR and JPY; a new invoice must use one of them/.test(error.message ?? ''),
    );
    // Either currency owed may still be invoiced: a refund must not stop the clinic billing the patient.
    createInvoice(server.db, buildInvoice(both.id, { total: '10.00', currency: 'JPY' }));
    createInvoice(server.db, buildInvoice(both.id, { total: '10.00' }));
    assert.deepEqual((await owed(both)).outstanding_balances, [
      { currency: 'EUR', amount: '50.00' },
      { currency: 'JPY', amount: '4010.00' },
    ]);
  });
});
