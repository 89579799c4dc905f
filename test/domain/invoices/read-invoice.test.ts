import { randomUUID } from 'node:crypto';
import { READ_INVOICE } from '../../../src/domain/invoices/read-invoice.js';
import { describeScenarios, givenInvoice, type GivenInvoice, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * READ_INVOICE (GET /invoices/{invoice_id}, `clinic invoice show`): what it answers and records.
 * The invoice on the wire with its payments, refunds and credit notes:
 * test/server/routes/invoices.test.ts.
 */

const scenarios: Scenario<GivenInvoice>[] = [
  {
    title: "answers the invoice and records one invoice.read on its patient's record",
    given: givenInvoice('80.00'),
    request: (given) => ({ path: { invoice_id: given.invoiceId } }),
    expect: (given) => ({
      result: { id: given.invoiceId, invoice_number: given.invoiceNumber, balance: 80, payments: [], refunds: [], credit_notes: [] },
      audit: [{ action: 'invoice.read', patient_id: given.patientId, subject_type: 'invoice', subject_id: given.invoiceId, detail: null }],
      changes: [],
    }),
  },
  {
    title: 'refuses an unknown invoice (404 INVOICE_NOT_FOUND)',
    given: givenInvoice('80.00'),
    request: () => ({ path: { invoice_id: randomUUID() } }),
    expect: () => ({ refused: 'INVOICE_NOT_FOUND', status: 404 }),
  },
];

describeScenarios('READ_INVOICE', READ_INVOICE, scenarios);
