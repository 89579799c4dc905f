import { listAuditEventRows } from '../../db/audit-events.js';
import { listApiKeyRows } from '../../db/api-keys.js';
import { findDoctor, type DoctorRow } from '../../db/doctors.js';
import { listPatientDocumentRows, BEFORE_NEWEST_DOCUMENT, type DocumentRow } from '../../db/documents.js';
import type { Db } from '../../db/open-database.js';
import { findPatient } from '../../db/patients.js';
import { listPatientAppointmentRows, listPatientChangeEvents, listPatientInvoiceIds } from '../../db/patient-records.js';
import { BEFORE_FIRST_REMINDER, listReminderRows } from '../../db/reminders.js';
import { listEndpointReaches } from '../../db/webhook-endpoints.js';
import { errors } from '../../errors.js';
import { presentStoredAppointment, type Appointment } from '../appointments/present-appointment.js';
import { presentAuditEvent, type AuditEvent } from '../audit/audit-event.js';
import { presentDocumentItem, type DocumentItem } from '../documents/read-documents.js';
import { invoiceDetail, type InvoiceDetail } from '../invoices/read-invoice.js';
import { outstandingBalance } from '../invoices/outstanding-balance.js';
import { presentPatient, type Patient } from '../patients/present-patient.js';
import { presentReminder, type Reminder } from '../reminders/list-reminders.js';
import { serverEmailHost } from '../reminders/reminder-channels.js';
import { smsGateway } from '../reminders/sms-gateway.js';
import { clinicRetention, type Retention } from '../retention/retention-rules.js';
import { clinicCountry, clinicName, clinicTimeZone } from '../settings.js';
import { exportRecipients, hostOf, type Recipients } from './export-recipients.js';

/** What a patient's copy holds (clinic-api-1.3.md, "The patient's copy"), read in one transaction. */
export interface PatientExportContents {
  patient: Patient;
  appointments: Appointment[];
  invoices: InvoiceDetail[];
  /** The stored rows: the archive needs their sizes and SHA-256s as well as their API shape. */
  documentRows: DocumentRow[];
  documents: DocumentItem[];
  reminders: Reminder[];
  accessLog: AuditEvent[];
  recipients: Recipients;
  /** The doctors the appointments name, for the Bundle's Practitioners. */
  doctors: DoctorRow[];
  clinic: { name: string | null; country: string | null; timeZone: string; retention: Retention | null };
  /** When the copy was made (UTC ISO). */
  createdAt: string;
}

/** The audit trail is read a page at a time: its event lookup takes a list of seqs. */
const AUDIT_PAGE = 500;

function patientAuditEvents(db: Db, patientId: string): AuditEvent[] {
  const events: AuditEvent[] = [];
  for (let after = 0; ;) {
    const page = listAuditEventRows(db, { patientId, actions: null, from: null, to: null, after, limit: AUDIT_PAGE });
    events.push(...page.map(presentAuditEvent));
    if (page.length < AUDIT_PAGE) return events;
    after = page[page.length - 1]!.seq;
  }
}

/** Everything the copy holds of a patient, each record in its API shape: 404 PATIENT_NOT_FOUND. */
export function readPatientExport(db: Db, patientId: string, now: string): PatientExportContents {
  const row = findPatient(db, patientId);
  if (!row) throw errors.patientNotFound();
  const appointmentRows = listPatientAppointmentRows(db, patientId);
  const doctors = [...new Set(appointmentRows.map((appointment) => appointment.resource_id))]
    .map((id) => (id === null ? undefined : findDoctor(db, id)))
    .filter((doctor): doctor is DoctorRow => doctor !== undefined);
  const invoices = listPatientInvoiceIds(db, patientId).map((id) => invoiceDetail(db, id));
  const documentRows = listPatientDocumentRows(db, patientId, BEFORE_NEWEST_DOCUMENT, Number.MAX_SAFE_INTEGER).reverse();
  const filter = { from: null, to: null, states: null, patientId, appointmentId: null };
  const reminders = listReminderRows(db, filter, BEFORE_FIRST_REMINDER, Number.MAX_SAFE_INTEGER).map(presentReminder);
  const accessLog = patientAuditEvents(db, patientId);
  return {
    patient: presentPatient(row, outstandingBalance(db, row.id)),
    appointments: appointmentRows.map((appointment) => presentStoredAppointment(db, appointment)),
    invoices,
    documentRows,
    documents: documentRows.map(presentDocumentItem),
    reminders,
    accessLog,
    recipients: exportRecipients({
      accessLog,
      feedEvents: listPatientChangeEvents(db, patientId),
      apiKeys: listApiKeyRows(db),
      webhooks: listEndpointReaches(db),
      reminders,
      smsHost: smsGatewayHost(db),
      // The SMTP server the last `serve` sent e-mail through, without its port.
      smtpHost: serverEmailHost(db)?.replace(/:\d+$/, '') ?? null,
    }),
    doctors,
    clinic: { name: clinicName(db), country: clinicCountry(db), timeZone: clinicTimeZone(db), retention: clinicRetention(db) },
    createdAt: now,
  };
}

/** The host of the SMS gateway reminders go through, or null without one. */
function smsGatewayHost(db: Db): string | null {
  const gateway = smsGateway(db);
  if (gateway === null) return null;
  return hostOf(gateway.preset === 'generic' ? gateway.url : gateway.baseUrl);
}
