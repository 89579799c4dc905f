// src/domain/desk/patient-overview.ts: `clinic patient show` and `clinic document list` (clinic-api-1.1.md, "Staff references on the command line").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { insertDocument } from '../../../src/db/documents.js';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import {
  LIST_ALL_DOCUMENTS,
  PATIENT_OVERVIEW,
  readPatientOverview,
  UPCOMING_APPOINTMENT_LIMIT,
} from '../../../src/domain/desk/patient-overview.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * `clinic patient show REF` and `clinic document list REF` (clinic-api-1.1.md, "Staff references
 * on the command line"; clinic-api-1.2.md, "Audit trail"; clinic-api-1.3.md, "Roles"):
 * PATIENT_OVERVIEW and LIST_ALL_DOCUMENTS. The printouts: test/cli/commands/patient.test.ts and
 * test/cli/commands/document.test.ts.
 */

interface Given {
  patientId: string;
  /** Ids in the order the overview shows them. */
  appointments: string[];
  openInvoices: string[];
  documents: string[];
}

/** Books an appointment of `patientId` from `start` to `end`; returns its id. */
const book = (db: Db, patientId: string, start: string, end: string) =>
  bookAppointment(db, { patient_id: patientId, start_at: start, end_at: end }, 'cli').id;

/** Stores a document's row for `patientId` at `createdAt` (its bytes are not needed to list it); returns its id. */
function storeDocumentRow(db: Db, patientId: string, createdAt: string): string {
  const id = randomUUID();
  const row = { id, patient_id: patientId, filename: 'scan.pdf', content_type: 'application/pdf', size: 4, sha256: 'e'.repeat(64) };
  insertDocument(db, { ...row, title: null, type: 'scans', created_at: createdAt });
  return id;
}

/**
 * Ada: an appointment long past, one running now, two in 2099 booked out of order; an invoice
 * paid off and two open; two documents.
 */
function adasRecords(db: Db): Given {
  const patientId = createTestPatient(db).id;
  book(db, patientId, '2000-01-03T09:00:00Z', '2000-01-03T09:30:00Z');
  const later = book(db, patientId, '2099-06-01T09:00:00Z', '2099-06-01T09:30:00Z');
  const sooner = book(db, patientId, '2099-01-01T09:00:00Z', '2099-01-01T09:30:00Z');
  const running = book(db, patientId, '2000-01-01T09:00:00Z', '2099-12-31T09:00:00Z');
  const paid = createTestInvoice(db, { patient_id: patientId, total: '40.00' }).id;
  recordPayment(db, { path: { invoice_id: paid }, headers: {}, body: buildPayment({ amount: '40.00' }) });
  const open = [1, 2].map(() => createTestInvoice(db, { patient_id: patientId }).id);
  const documents = ['2026-11-01T10:00:00.000Z', '2026-11-30T10:00:00.000Z'].map((at) => storeDocumentRow(db, patientId, at));
  return { patientId, appointments: [running, sooner, later], openInvoices: open.reverse(), documents: documents.reverse() };
}

const ids = (list: readonly string[]) => list.map((id) => ({ id }));
const patientRead = (patientId: string) => ({
  action: 'patient.read',
  patient_id: patientId,
  subject_type: 'patient',
  subject_id: patientId,
});
const show = (given: Given) => ({ path: { patient_id: given.patientId } });

const overview: Scenario<Given>[] = [
  {
    title:
      'shows the record, the appointments not ended soonest first, the open invoices and the documents newest first, as one patient.read',
    given: adasRecords,
    request: show,
    expect: (given) => ({
      result: {
        overview: {
          patient: { id: given.patientId, outstanding_balance: '200.00' },
          upcoming_appointments: ids(given.appointments),
          open_invoices: ids(given.openInvoices),
          documents: ids(given.documents),
        },
        billingEnabled: true,
        moreAppointments: false,
      },
      audit: [patientRead(given.patientId)],
      changes: [],
    }),
  },
  {
    title: 'lists no invoices while billing is off',
    given: (db) => {
      const given = adasRecords(db);
      setModuleEnabled(db, 'billing', false);
      return given;
    },
    request: show,
    expect: (given) => ({
      result: { overview: { open_invoices: [], documents: ids(given.documents) }, billingEnabled: false },
      audit: [patientRead(given.patientId)],
      changes: [],
    }),
  },
  {
    title: 'shows a scheduler no money and no documents',
    given: adasRecords,
    request: show,
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: (given) => ({
      result: {
        overview: {
          patient: { outstanding_balance: null, outstanding_currency: null },
          upcoming_appointments: ids(given.appointments),
          open_invoices: null,
          documents: null,
        },
      },
      audit: [patientRead(given.patientId)],
      changes: [],
    }),
  },
  {
    title: `shows ${UPCOMING_APPOINTMENT_LIMIT} coming appointments of ${UPCOMING_APPOINTMENT_LIMIT + 1}, saying more follow`,
    given: (db) => {
      const patientId = createTestPatient(db).id;
      const appointments = Array.from({ length: UPCOMING_APPOINTMENT_LIMIT + 1 }, (_, day) => {
        const date = `2099-02-${String(day + 1).padStart(2, '0')}`;
        return book(db, patientId, `${date}T09:00:00Z`, `${date}T09:30:00Z`);
      });
      return { patientId, appointments: appointments.slice(0, UPCOMING_APPOINTMENT_LIMIT), openInvoices: [], documents: [] };
    },
    request: show,
    expect: (given) => ({
      result: { overview: { upcoming_appointments: ids(given.appointments) }, moreAppointments: true },
      audit: [patientRead(given.patientId)],
      changes: [],
    }),
  },
  {
    title: 'refuses an unknown patient (404 PATIENT_NOT_FOUND)',
    given: adasRecords,
    request: () => ({ path: { patient_id: randomUUID() } }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
];

const documentList: Scenario<Given>[] = [
  {
    title: 'lists every document past a page of 200, newest first, as one document.list',
    given: (db) => {
      const patientId = createTestPatient(db).id;
      const documents = Array.from({ length: 201 }, (_, i) =>
        storeDocumentRow(db, patientId, new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()),
      );
      return { patientId, appointments: [], openInvoices: [], documents: documents.reverse() };
    },
    request: show,
    expect: (given) => ({
      result: { patient: { id: given.patientId }, documents: ids(given.documents) },
      audit: [{ action: 'document.list', patient_id: given.patientId, subject_type: 'document', subject_id: null }],
      changes: [],
    }),
  },
  {
    title: 'refuses a scheduler, who sees no documents (403 ROLE_FORBIDDEN)',
    given: adasRecords,
    request: show,
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios("a patient's overview at the desk (PATIENT_OVERVIEW)", PATIENT_OVERVIEW, overview);
describeScenarios('every document of a patient (LIST_ALL_DOCUMENTS)', LIST_ALL_DOCUMENTS, documentList);

describe('the coming appointments of an overview', () => {
  const data = useTestDatabase();

  it('leaves out an appointment that ends exactly now, and shows one that ends a millisecond later', () => {
    const patientId = createTestPatient(data.db).id;
    book(data.db, patientId, '2026-11-30T08:30:00Z', '2026-11-30T09:00:00Z');
    const endsLater = book(data.db, patientId, '2026-11-30T08:30:00Z', '2026-11-30T09:00:00.001Z');
    const shown = readPatientOverview(data.db, patientId, Date.parse('2026-11-30T09:00:00.000Z')).overview.upcoming_appointments;
    assert.deepEqual(
      shown.map((appointment) => appointment.id),
      [endsLater],
    );
  });
});
