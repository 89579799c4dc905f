import type { Db } from '../../db/open-database.js';
import { listUpcomingAppointmentRows } from '../../db/patient-calendar.js';
import { MAX_PAGE_LIMIT } from '../../fields/page-fields.js';
import { presentStoredAppointment, type Appointment } from '../appointments/present-appointment.js';
import { listPatientDocuments, type DocumentItem } from '../documents/read-documents.js';
import { listInvoices } from '../invoices/list-invoices.js';
import type { Invoice } from '../invoices/present-invoice.js';
import type { Patient } from '../patients/present-patient.js';
import { readPatient } from '../patients/read-patient.js';
import { resolvePatientReference } from '../references.js';
import { isModuleEnabled } from '../settings.js';
import { readDeskContext, type DeskContext } from './desk-context.js';

/** How many coming appointments the overview shows (clinic-api-1.1.md). */
export const UPCOMING_APPOINTMENT_LIMIT = 20;

/** `clinic patient show --json` (clinic-api-1.1.md): the record and what the desk needs next to it. */
export interface PatientOverview {
  patient: Patient;
  /** Appointments that end after now, soonest first, at most UPCOMING_APPOINTMENT_LIMIT. */
  upcoming_appointments: Appointment[];
  /** Invoices with a balance, newest first; none while billing is off. */
  open_invoices: Invoice[];
  /** Every document, newest first. */
  documents: DocumentItem[];
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
 * `clinic patient show REF`: one patient by id or number (P-42), with their balance as it stands,
 * their coming appointments, their open invoices (the billing module applies as on the API:
 * off, none are listed) and their documents. 404 PATIENT_NOT_FOUND for an unknown patient.
 */
export function readPatientOverview(db: Db, reference: string, now = Date.now()): PatientOverviewResult {
  const patient = readPatient(db, resolvePatientReference(db, reference));
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
