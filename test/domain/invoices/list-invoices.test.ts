import type { Db } from '../../../src/db/open-database.js';
import { LIST_INVOICES } from '../../../src/domain/invoices/list-invoices.js';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * LIST_INVOICES (GET /invoices, `clinic invoice list`): what a list records, row by row. Its
 * filters, order and pages: the listing tests in test/domain/invoices/create-invoice.test.ts and
 * test/server/routes/invoices.test.ts.
 */

/** Ada's two invoices and Bob's one, issued in that order; Cleo has none. */
interface Given {
  ada: string;
  bob: string;
  cleo: string;
}

const aClinic = (db: Db): Given => {
  const ada = createTestPatient(db, { first_name: 'Ada' }).id;
  const bob = createTestPatient(db, { first_name: 'Bob' }).id;
  createTestInvoice(db, { patient_id: ada, total: '10.00' });
  createTestInvoice(db, { patient_id: ada, total: '20.00' });
  createTestInvoice(db, { patient_id: bob, total: '30.00' });
  return { ada, bob, cleo: createTestPatient(db, { first_name: 'Cleo' }).id };
};

const scenarios: Scenario<Given>[] = [
  {
    title: 'records one invoice.read per distinct patient of the list, in its order (newest first)',
    given: aClinic,
    request: () => ({ query: {} }),
    expect: (given) => ({
      result: {},
      audit: [
        { action: 'invoice.read', patient_id: given.bob, subject_type: 'invoice', subject_id: null, detail: null },
        { action: 'invoice.read', patient_id: given.ada, subject_type: 'invoice', subject_id: null, detail: null },
      ],
      changes: [],
    }),
  },
  {
    title: 'records only the patient whose invoices are asked for',
    given: aClinic,
    request: (given) => ({ query: { patient_id: given.bob } }),
    expect: (given) => ({ result: {}, audit: [{ action: 'invoice.read', patient_id: given.bob }], changes: [] }),
  },
  {
    title: 'records nothing for a list of no invoice',
    given: aClinic,
    request: (given) => ({ query: { patient_id: given.cleo } }),
    expect: () => ({ result: { items: [] }, audit: [], changes: [] }),
  },
];

describeScenarios('LIST_INVOICES', LIST_INVOICES, scenarios);
