// src/domain/lookups.ts: GET /document-types and GET /payment-methods (clinic-public-api.md 2.12; decisions.md §2).
import { LIST_DOCUMENT_TYPES, LIST_PAYMENT_METHODS } from '../../src/domain/lookups.js';
import { setModuleEnabled } from '../../src/domain/settings.js';
import { aClinic, type ClinicGiven } from '../helpers/clinic-given.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../helpers/use-case-scenarios.js';

/**
 * The two static lookups (GET /document-types, GET /payment-methods; clinic-public-api.md 2.12,
 * decisions.md §2): public lists that show no patient data. Their wiring without a key:
 * test/server/routes/lookups.test.ts.
 */

/** The whole list, item by item and no item more; a lookup records nothing. */
const theList = (items: readonly Record<string, unknown>[]) => (): Outcome => ({
  result: { ...items, length: items.length },
  audit: [],
  changes: [],
});

const DOCUMENT_TYPES = [
  { key: 'invoices', label: 'Invoices' },
  { key: 'quotations', label: 'Quotations' },
  { key: 'xrays', label: 'X-rays' },
  { key: 'scans', label: 'Scans' },
  { key: 'prescriptions', label: 'Prescriptions' },
  { key: 'consent', label: 'Consent forms' },
  { key: 'communications', label: 'Communications' },
  { key: 'other', label: 'Other' },
];

const PAYMENT_METHODS = [
  { key: 'cash', requires_note: false },
  { key: 'card', requires_note: false },
  { key: 'bank', requires_note: false },
  { key: 'other', requires_note: true },
];

const documentTypes: Scenario<ClinicGiven>[] = [
  {
    title: 'lists the eight document types of 2.12, each with its label',
    given: aClinic(),
    request: () => ({}),
    expect: theList(DOCUMENT_TYPES),
  },
  {
    title: 'answers any person, a scheduler too: no login is needed for it',
    given: aClinic(),
    request: () => ({}),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: theList(DOCUMENT_TYPES),
  },
];

const paymentMethods: Scenario<ClinicGiven>[] = [
  {
    title: 'lists the four payment methods, a note hinted for `other` only',
    given: aClinic(),
    request: () => ({}),
    expect: theList(PAYMENT_METHODS),
  },
  {
    title: 'lists them with the payments and billing modules off: the list is no payment',
    given: aClinic((db) => {
      setModuleEnabled(db, 'payments', false);
      setModuleEnabled(db, 'billing', false);
    }),
    request: () => ({}),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: theList(PAYMENT_METHODS),
  },
];

describeScenarios('the document types (LIST_DOCUMENT_TYPES)', LIST_DOCUMENT_TYPES, documentTypes);
describeScenarios('the payment methods (LIST_PAYMENT_METHODS)', LIST_PAYMENT_METHODS, paymentMethods);
