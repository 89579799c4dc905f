import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/db/open-database.js';
import { READ_PATIENT } from '../../../src/domain/patients/read-patient.js';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * READ_PATIENT (GET /patients/{patient_id}; `clinic patient show` records as it does), rule by
 * rule: what it answers and the one patient.read it records. The Patient on the wire, its ETag
 * and the roles that see a balance: test/server/routes/patients.test.ts; the actor each front end
 * records: test/server/routes/audit.test.ts and test/cli/commands/audit.test.ts.
 */

interface Given {
  patientId: string;
  patientNumber: string;
}

const aPatient =
  (before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    const patient = createTestPatient(db);
    const given = { patientId: patient.id, patientNumber: patient.patient_number };
    before(db, given);
    return given;
  };

const read = (patientId: string) => () => ({ path: { patient_id: patientId } });

const scenarios: Scenario<Given>[] = [
  {
    title: 'answers the patient as it stands, owing nothing, and records one patient.read',
    given: aPatient(),
    request: (given) => read(given.patientId)(),
    expect: (given) => ({
      result: { id: given.patientId, patient_number: given.patientNumber, version: 1, outstanding_balance: '0' },
      audit: [{ action: 'patient.read', patient_id: given.patientId, subject_type: 'patient', subject_id: given.patientId, detail: null }],
      changes: [],
    }),
  },
  {
    title: 'answers what the patient owes now, in its currency',
    given: aPatient((db, given) => void createTestInvoice(db, { patient_id: given.patientId, total: '80.00' })),
    request: (given) => read(given.patientId)(),
    expect: (given) => ({
      result: { outstanding_balance: '80.00', outstanding_currency: 'EUR' },
      audit: [{ action: 'patient.read', patient_id: given.patientId }],
      changes: [],
    }),
  },
  {
    title: 'reads an id written in capitals as the patient it names',
    given: aPatient(),
    request: (given) => read(given.patientId.toUpperCase())(),
    expect: (given) => ({ result: { id: given.patientId }, audit: [{ action: 'patient.read', patient_id: given.patientId }], changes: [] }),
  },
  {
    title: 'refuses an unknown patient, recording nothing (404 PATIENT_NOT_FOUND)',
    given: aPatient(),
    request: read(randomUUID()),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a malformed id (uuid_parsing at the path)',
    given: aPatient(),
    request: read('P-000001'),
    expect: () => ({ invalid: ['path.patient_id'], types: ['uuid_parsing'] }),
  },
];

describeScenarios('READ_PATIENT', READ_PATIENT, scenarios);
