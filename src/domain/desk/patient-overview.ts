import type { Db } from '../../db/open-database.js';
import { listUpcomingAppointmentRows } from '../../db/patient-calendar.js';
import { MAX_PAGE_LIMIT } from '../../fields/page-fields.js';
import { PATIENT_PATH_FIELDS } from '../../fields/patient-fields.js';
import { presentStoredAppointment, type Appointment } from '../appointments/present-appointment.js';
import { documentListRecords, listPatientDocuments, type DocumentItem } from '../documents/read-documents.js';
import { errors } from '../../errors.js';
import { listInvoices } from '../invoices/list-invoices.js';
import type { Invoice } from '../invoices/present-invoice.js';
import type { Patient } from '../patients/present-patient.js';
import { patientReadRecords, readPatient } from '../patients/read-patient.js';
import { isModuleEnabled } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { readDeskContext, type DeskContext } from './desk-context.js';
import { balanceFor, ROLE_ROWS, seesMoney } from '../people/roles.js';

/** How many coming appointments the overview shows (clinic-api-1.1.md). */
export const UPCOMING_APPOINTMENT_LIMIT = 20;

/** `clinic patient show --json` (clinic-api-1.1.md): the record and what the desk needs next to it. */
export interface PatientOverview {
  patient: Patient;
  /** Appointments that end after now, soonest first, at most UPCOMING_APPOINTMENT_LIMIT. */
  upcoming_appointments: Appointment[];
  /** Invoices with a balance, newest first; none while billing is off; null for a person who sees no money (a scheduler). */
  open_invoices: Invoice[] | null;
  /** Every document, newest first; null for a person who sees no documents (a scheduler). */
  documents: DocumentItem[] | null;
}

/** The overview, and what its printout needs. */
export interface PatientOverviewResult {
  overview: PatientOverview;
  context: DeskContext;
  billingEnabled: boolean;
  /** Whether more upcoming appointments follow the UPCOMING_APPOINTMENT_LIMIT shown. */
  moreAppointments: boolean;
}

/** Every document of a patient, newest first, read page by page (`patient show`, `document list`). */
export function listAllDocuments(db: Db, patientId: string): DocumentItem[] {
  const documents: DocumentItem[] = [];
  let after: string | null = null;
  do {
    const page = listPatientDocuments(db, patientId, { limit: MAX_PAGE_LIMIT, ...(after === null ? {} : { after }) });
    documents.push(...page.items);
    after = page.next;
  } while (after !== null);
  return documents;
}

/**
 * `clinic patient show REF`: one patient (the desk resolves a number to the id), with their
 * balance as it stands, their coming appointments, their open invoices (the billing module applies
 * as on the API: off, none are listed) and their documents. 404 PATIENT_NOT_FOUND for an unknown
 * patient.
 */
export function readPatientOverview(db: Db, patientId: string, now = Date.now()): PatientOverviewResult {
  const patient = readPatient(db, patientId);
  const billingEnabled = isModuleEnabled(db, 'billing');
  // One more than shown, to know whether the list was cut.
  const upcoming = listUpcomingAppointmentRows(db, patient.id, new Date(now).toISOString(), UPCOMING_APPOINTMENT_LIMIT + 1);
  return {
    overview: {
      patient,
      upcoming_appointments: upcoming.slice(0, UPCOMING_APPOINTMENT_LIMIT).map((row) => presentStoredAppointment(db, row)),
      open_invoices: billingEnabled ? listInvoices(db, { patient_id: patient.id, unpaid: true }).items : [],
      documents: listAllDocuments(db, patient.id),
    },
    context: readDeskContext(db),
    billingEnabled,
    moreAppointments: upcoming.length > UPCOMING_APPOINTMENT_LIMIT,
  };
}

/**
 * `clinic patient show`: the overview, recorded as GET /patients/{patient_id} records the record
 * alone: one patient.read, although appointments, invoices and documents are shown beside it
 * (clinic-api-1.2.md).
 */
export const PATIENT_OVERVIEW = defineUseCase({
  roles: ROLE_ROWS.readPatients,
  summary: "A patient's record, balance, next appointments, open invoices and documents",
  input: { path: PATIENT_PATH_FIELDS },
  refusals: [errors.patientNotFound(404)],
  access: 'read',
  run: (db, { path }, caller) => {
    const result = readPatientOverview(db, path.patient_id);
    if (seesMoney(caller.roles)) return result;
    const { overview } = result;
    return {
      ...result,
      overview: { ...overview, patient: balanceFor(overview.patient, caller.roles), open_invoices: null, documents: null },
    };
  },
  audit: ({ overview }) => patientReadRecords(overview.patient),
});

/** `clinic document list`: a patient and every document of theirs, newest first. */
export interface PatientDocuments {
  patient: Patient;
  documents: DocumentItem[];
}

/**
 * `clinic document list REF`: every document of a patient, newest first, read page by page
 * through GET /patients/{patient_id}/documents's list, and recorded as it records its pages: one
 * document.list. 404 PATIENT_NOT_FOUND.
 */
export const LIST_ALL_DOCUMENTS = defineUseCase({
  roles: ROLE_ROWS.listDocuments,
  summary: 'List every document of a patient, newest first, with the numbers `document save` takes',
  input: { path: PATIENT_PATH_FIELDS },
  refusals: [errors.patientNotFound(404)],
  access: 'read',
  run: (db, { path }): PatientDocuments => {
    const patient = readPatient(db, path.patient_id);
    return { patient, documents: listAllDocuments(db, patient.id) };
  },
  audit: ({ patient }) => documentListRecords(patient.id),
});
