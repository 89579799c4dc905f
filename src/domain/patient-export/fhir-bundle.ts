import type { DoctorRow } from '../../db/doctors.js';
import type { Appointment } from '../appointments/present-appointment.js';
import type { DocumentItem } from '../documents/read-documents.js';
import type { InvoiceDetail } from '../invoices/read-invoice.js';
import type { Patient } from '../patients/present-patient.js';
import type { PatientExportContents } from './export-contents.js';

/**
 * The patient's copy as a FHIR R4 (4.0.1) Bundle of type `collection` (clinic-api-1.3.md, "The
 * patient's copy"): one entry per record, each named by `urn:uuid:<id>` and referred to by it.
 * Codeable values are given as text only: the program keeps no codes of a terminology, and a
 * code made up would mislead the system that imports it. Resources carry no `id`: the fullUrl
 * names them, as a collection's entries are not a server's.
 */

type Resource = Record<string, unknown> & { resourceType: string };

const urn = (id: string) => `urn:uuid:${id}`;
const reference = (id: string) => ({ reference: urn(id) });
const text = (value: string) => ({ text: value });

/** Drops absent values (undefined, null, '', [] and {}), as FHIR allows no empty element. */
function compact<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(
      ([, value]) =>
        value !== undefined &&
        value !== null &&
        value !== '' &&
        !(Array.isArray(value) && value.length === 0) &&
        !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0),
    ),
  ) as T;
}

const string = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** A stored gender, in any case, as FHIR's AdministrativeGender; undefined for anything else. */
export function fhirGender(stored: unknown): 'male' | 'female' | 'other' | 'unknown' | undefined {
  const value = string(stored)?.trim().toLowerCase();
  if (value === 'male' || value === 'm') return 'male';
  if (value === 'female' || value === 'f' || value === 'w') return 'female';
  if (value === 'other' || value === 'd' || value === 'x') return 'other';
  if (value === 'unknown') return 'unknown';
  return undefined;
}

function patientResource(patient: Patient): Resource {
  const line = string(patient.address_street);
  const address = compact({
    line: line === undefined ? undefined : [line],
    postalCode: string(patient.address_zip),
    city: string(patient.address_city),
    state: string(patient.address_state),
    country: string(patient.address_country),
  });
  const title = string(patient.title);
  return compact({
    resourceType: 'Patient',
    identifier: [{ value: patient.patient_number }],
    active: patient.is_active,
    name: [compact({ family: patient.last_name, given: [patient.first_name], prefix: title === undefined ? undefined : [title] })],
    telecom: [
      ...(string(patient.phone) === undefined ? [] : [{ system: 'phone', value: patient.phone }]),
      ...(string(patient.mobile) === undefined ? [] : [{ system: 'phone', value: patient.mobile, use: 'mobile' }]),
      ...(string(patient.email) === undefined ? [] : [{ system: 'email', value: patient.email }]),
    ],
    gender: fhirGender(patient.gender),
    birthDate: string(patient.date_of_birth),
    address: Object.keys(address).length === 0 ? undefined : [address],
  });
}

const practitionerResource = (doctor: DoctorRow): Resource => ({ resourceType: 'Practitioner', name: [text(doctor.name)] });

/** The clinic's appointment statuses as FHIR's; a free-string status counts as booked. */
const APPOINTMENT_STATUSES: Record<string, string> = {
  booked: 'booked',
  arrived: 'arrived',
  completed: 'fulfilled',
  no_show: 'noshow',
  cancelled: 'cancelled',
};

/** The patient's answer to the appointment: accepted, declined, or not yet given. */
function patientParticipation(appointment: Appointment): 'accepted' | 'declined' | 'needs-action' {
  if (appointment.patient_declined_at !== null) return 'declined';
  if (appointment.patient_confirmed_at !== null) return 'accepted';
  return 'needs-action';
}

function appointmentResource(appointment: Appointment, patientId: string, doctorIds: ReadonlySet<string>): Resource {
  const status = APPOINTMENT_STATUSES[appointment.status] ?? 'booked';
  return compact({
    resourceType: 'Appointment',
    identifier: [{ value: appointment.appointment_number }],
    status,
    cancelationReason: status === 'cancelled' && appointment.status_reason !== null ? text(appointment.status_reason) : undefined,
    serviceType: appointment.services.map((service) => text(service.name)),
    appointmentType: string(appointment.appointment_type) === undefined ? undefined : text(appointment.appointment_type!),
    description: string(appointment.title),
    start: appointment.start_at,
    end: appointment.end_at,
    created: appointment.created_at,
    comment: string(appointment.notes),
    participant: [
      { actor: reference(patientId), status: patientParticipation(appointment) },
      ...(appointment.resource_id !== null && doctorIds.has(appointment.resource_id)
        ? [{ actor: reference(appointment.resource_id), status: 'accepted' }]
        : []),
    ],
  });
}

const INVOICE_STATUSES: Record<string, string> = { issued: 'issued', partially_paid: 'issued', paid: 'balanced', void: 'cancelled' };

const money = (value: number, currency: string) => ({ value, currency });

function invoiceResource(invoice: InvoiceDetail): Resource {
  return compact({
    resourceType: 'Invoice',
    identifier: [{ value: invoice.invoice_number }],
    status: INVOICE_STATUSES[invoice.status] ?? 'issued',
    cancelledReason: invoice.status === 'void' ? string(invoice.void_reason) : undefined,
    subject: reference(invoice.patient_id),
    date: invoice.issued_at,
    totalGross: money(invoice.total, invoice.currency),
  });
}

/** A payment or refund as FHIR's PaymentReconciliation: a refund's amount is negative. */
function reconciliation(
  invoice: InvoiceDetail,
  kind: 'payment' | 'refund',
  entry: { amount: number; created_at: string; method: string },
): Resource {
  const amount = money(kind === 'refund' ? -entry.amount : entry.amount, invoice.currency);
  return {
    resourceType: 'PaymentReconciliation',
    status: 'active',
    created: entry.created_at,
    paymentDate: entry.created_at.slice(0, 10),
    paymentAmount: amount,
    disposition: entry.method,
    detail: [{ type: text(kind), request: reference(invoice.id), date: entry.created_at.slice(0, 10), amount }],
  };
}

/**
 * A stored file name as a name in the archive: a separator, a control character or a character
 * Windows refuses in a name becomes `_`, so that every unzip tool writes the file where the
 * path says, inside its document's folder.
 */
const archiveName = (filename: string) => {
  const name = Array.from(filename, (c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' || '/\\:*?"<>|'.includes(c) ? '_' : c)).join('');
  return name === '' || name === '.' || name === '..' ? 'document' : name;
};

/** The path of a document's original in the archive. */
export const documentArchivePath = (document: Pick<DocumentItem, 'id' | 'filename'>) =>
  `documents/${document.id}/${archiveName(document.filename)}`;

/** A path as a relative URL: each segment percent-encoded. */
const pathUrl = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function documentResource(document: DocumentItem, patientId: string): Resource {
  return compact({
    resourceType: 'DocumentReference',
    identifier: [{ value: document.document_number }],
    status: 'current',
    type: text(document.type),
    subject: reference(patientId),
    date: document.created_at,
    description: string(document.title),
    content: [
      {
        attachment: compact({
          contentType: document.content_type,
          url: pathUrl(documentArchivePath(document)),
          size: document.size,
          title: document.filename,
          creation: document.created_at,
        }),
      },
    ],
  });
}

/** The copy's `bundle.json`. */
export function patientBundle(contents: PatientExportContents): Resource {
  const { patient } = contents;
  const doctorIds = new Set(contents.doctors.map((doctor) => doctor.id));
  const entry = (id: string, resource: Resource) => ({ fullUrl: urn(id), resource });
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp: contents.createdAt,
    entry: [
      entry(patient.id, patientResource(patient)),
      ...contents.doctors.map((doctor) => entry(doctor.id, practitionerResource(doctor))),
      ...contents.appointments.map((appointment) => entry(appointment.id, appointmentResource(appointment, patient.id, doctorIds))),
      ...contents.invoices.flatMap((invoice) => [
        entry(invoice.id, invoiceResource(invoice)),
        ...invoice.payments.map((payment) => entry(payment.payment_id, reconciliation(invoice, 'payment', payment))),
        ...invoice.refunds.map((refund) => entry(refund.refund_id, reconciliation(invoice, 'refund', refund))),
      ]),
      ...contents.documents.map((document) => entry(document.id, documentResource(document, patient.id))),
    ],
  };
}
