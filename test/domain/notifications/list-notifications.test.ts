// src/domain/notifications/list-notifications.ts: `clinic notifications list` (decisions.md §7, §8).
import type { Db } from '../../../src/db/open-database.js';
import { LIST_NOTIFICATIONS } from '../../../src/domain/notifications/list-notifications.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { setClinicContactRule } from '../../../src/domain/settings.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * LIST_NOTIFICATIONS (`clinic notifications list`; decisions.md §7, §8): the outbox oldest first,
 * named for people, and one invoice.read per patient it shows. The printout and --json:
 * test/cli/commands/notifications.test.ts.
 */

interface Given {
  ada: Patient;
  grace: Patient;
  /** The invoices paid off, in the order they were: Ada's two, then Grace's. */
  invoices: { id: string; invoice_number: string }[];
}

/** Pays `invoiceId`'s 100.00 off: the outbox gains its notification. */
const payOff = (db: Db, invoiceId: string) =>
  recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount: '100.00' }) });

/**
 * Two invoices of Ada (who has an email address) paid off, then one of Grace, who has no contact
 * at all (the clinic's rule is `none`): two pending emails and one failed row.
 */
function threePaidInvoices(db: Db): Given {
  setClinicContactRule(db, 'none');
  const ada = createTestPatient(db);
  const grace = createTestPatient(db, { first_name: 'Grace', last_name: 'Hopper', email: null, mobile: null });
  const invoices = [ada, ada, grace].map((patient) => createTestInvoice(db, { patient_id: patient.id }));
  for (const invoice of invoices) payOff(db, invoice.id);
  return { ada, grace, invoices };
}

const invoiceRead = (patient: Patient) => ({ action: 'invoice.read', patient_id: patient.id, subject_type: 'invoice', subject_id: null });
const nameOf = ({ patient_number, first_name, last_name }: Patient) => ({ patient_number, first_name, last_name });

const scenarios: Scenario<Given>[] = [
  {
    title: 'lists the outbox oldest first, names its patients and invoices, and records one invoice.read per patient shown',
    given: threePaidInvoices,
    request: () => ({ query: {} }),
    expect: ({ ada, grace, invoices }) => ({
      result: {
        notifications: [
          { patient_id: ada.id, invoice_id: invoices[0]!.id, channel: 'email', status: 'pending', attempts: 0, next_attempt_at: /Z$/ },
          { patient_id: ada.id, invoice_id: invoices[1]!.id, channel: 'email', status: 'pending' },
          {
            patient_id: grace.id,
            invoice_id: invoices[2]!.id,
            channel: 'sms',
            status: 'failed',
            next_attempt_at: null,
            last_error: 'the patient has neither an email address nor a mobile number',
          },
        ],
        patients: new Map([
          [ada.id, nameOf(ada)],
          [grace.id, nameOf(grace)],
        ]),
        invoiceNumbers: new Map(invoices.map((invoice) => [invoice.id, invoice.invoice_number])),
      },
      audit: [invoiceRead(ada), invoiceRead(grace)],
      changes: [],
    }),
  },
  {
    title: 'lists the rows of one status, recording only the patients they name',
    given: threePaidInvoices,
    request: () => ({ query: { status: 'failed' } }),
    expect: ({ grace }) => ({
      result: { notifications: [{ patient_id: grace.id, status: 'failed' }] },
      audit: [invoiceRead(grace)],
      changes: [],
    }),
  },
  {
    title: 'records nothing when no row is shown',
    given: threePaidInvoices,
    request: () => ({ query: { status: 'sent' } }),
    expect: () => ({ result: { notifications: [], patients: new Map(), invoiceNumbers: new Map() }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a status the outbox does not have (literal_error)',
    given: threePaidInvoices,
    request: () => ({ query: { status: 'delivered' } }),
    expect: () => ({ invalid: ['query.status'], types: ['literal_error'] }),
  },
  {
    title: 'refuses a scheduler, who sees no money (403 ROLE_FORBIDDEN)',
    given: threePaidInvoices,
    request: () => ({ query: {} }),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('listing the notification outbox (LIST_NOTIFICATIONS)', LIST_NOTIFICATIONS, scenarios);
