import {
  countPatientAuditEvents,
  countPatientFeedEvents,
  listErasableAppointments,
  listErasableDocuments,
  listErasableInvoices,
  listErasableMoney,
  listPatientNotificationIds,
  listPatientReminderIds,
  listPatientReplyIds,
  type ErasableAppointment,
} from '../../db/erasure.js';
import type { Db } from '../../db/open-database.js';
import type { PatientRow } from '../../db/patients.js';
import { toColumn } from '../../fields/columns.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { PATIENT_READ_ONLY_FIELDS, PATIENT_STORED_FIELDS } from '../../fields/patient-fields.js';
import { formatDate, localDateOf } from '../validation/calendar.js';
import type { Retention } from './retention-rules.js';

/**
 * What a patient's erasure does with each thing the clinic keeps of them (clinic-api-1.3.md,
 * "Erasure"), under the clinic's retention: erased now, kept until a day (then purged the day
 * after), or kept (the audit trail). The one place the specification's table is applied: the
 * dry run prints it, `--confirm` carries it out, `serve` purges by it.
 */

export const ERASURE_CATEGORIES = ['contact', 'appointments', 'documents', 'billing', 'reminders', 'change_feed', 'audit'] as const;
export type ErasureCategory = (typeof ERASURE_CATEGORIES)[number];
export type ErasureDecision = 'erase_now' | 'keep_until' | 'keep';

export interface ErasureItem {
  category: ErasureCategory;
  kind: string;
  id: string | null;
  number: string | null;
  decision: ErasureDecision;
  rule: string | null;
  /** The last day it is kept (the clinic's date, YYYY-MM-DD); purged the day after. */
  keep_until: string | null;
}

export interface ErasureGroup {
  category: ErasureCategory;
  decision: ErasureDecision;
  rule: string | null;
  keep_until: string | null;
  count: number;
}

/** The contact fields kept under the longest-kept item's rule; every other field is erased. */
const KEPT_FIELD =
  /^(first_name|last_name|salutation|title|gender|date_of_birth|address_.*|insurance_.*|insurer_.*|insured_status|billing_recipient|tin|gdpr_consent.*|cave|classification|notes|last_anamnesis_date|referr.*|gp_name)$/;

const CONTACT_FIELDS: readonly FieldSpec[] = [...PATIENT_STORED_FIELDS, ...PATIENT_READ_ONLY_FIELDS];

/** A field's value once erased, as stored: its default (a flag's false, an object's defaults), else null. */
function erasedColumnOf(spec: FieldSpec): unknown {
  const nested = (spec as { fields?: readonly FieldSpec[] }).fields;
  if (spec.kind === 'object' && nested !== undefined) {
    return toColumn(spec, Object.fromEntries(nested.map((inner) => [inner.name, (inner as { default?: unknown }).default ?? null])));
  }
  return toColumn(spec, (spec as { default?: unknown }).default ?? null);
}

/** The stored value each erasable contact field takes when erased, by column. */
export const ERASED_COLUMNS: Readonly<Record<string, unknown>> = Object.fromEntries(
  CONTACT_FIELDS.filter((spec) => !KEPT_FIELD.test(spec.name)).map((spec) => [spec.name, erasedColumnOf(spec)]),
);

/** Whether a stored column holds something (not what it holds once erased). */
function holdsValue(spec: FieldSpec, row: PatientRow): boolean {
  const value = row[spec.name];
  return value !== null && value !== undefined && value !== erasedColumnOf(spec);
}

/** The clinic's date of an instant, YYYY-MM-DD. */
export function clinicDate(iso: string, timeZone: string): string {
  return formatDate(localDateOf(Date.parse(iso), timeZone));
}

/** The same day `years` later (29 February: the 28th in a year without it). */
export function addYears(date: string, years: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const target = year + years;
  const last = new Date(Date.UTC(target, month, 0)).getUTCDate();
  return `${String(target).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
}

const endOfYear = (date: string) => `${date.slice(0, 4)}-12-31`;
const latest = (dates: readonly string[]) => dates.reduce((a, b) => (b > a ? b : a));

/** Held: arrived or completed, or begun by `now` while booked or of a free-string status. */
export function isHeld(appointment: Pick<ErasableAppointment, 'status' | 'start_at'>, now: string): boolean {
  if (appointment.status === 'arrived' || appointment.status === 'completed') return true;
  if (appointment.status === 'cancelled' || appointment.status === 'no_show') return false;
  return Date.parse(appointment.start_at) <= Date.parse(now);
}

/** The items of one patient, in the table's order of categories, each with its decision. */
export function erasureItems(db: Db, row: PatientRow, retention: Retention, now: string, timeZone: string): ErasureItem[] {
  const [recordsRule, billingRule] = retention.rules as [Retention['rules'][0], Retention['rules'][0]];
  const recordsYears = recordsRule.years!;
  const billingYears = billingRule.years!;
  const appointments = listErasableAppointments(db, row.id);
  const documents = listErasableDocuments(db, row.id);
  const held = appointments.filter((appointment) => isHeld(appointment, now));
  const records = documents.filter((document) => document.type !== 'invoices');
  // AT: each entry's own date. DE: the end of treatment, the last held appointment or record document.
  const treatmentEnd = [...held.map((a) => clinicDate(a.start_at, timeZone)), ...records.map((d) => clinicDate(d.created_at, timeZone))];
  const recordsUntil = (date: string) =>
    addYears(retention.country === 'AT' || treatmentEnd.length === 0 ? date : latest(treatmentEnd), recordsYears);
  const billingUntil = (iso: string) => addYears(endOfYear(clinicDate(iso, timeZone)), billingYears);

  const kept = (category: ErasureCategory, kind: string, id: string, number: string | null, rule: string, until: string): ErasureItem => ({
    category,
    kind,
    id,
    number,
    decision: 'keep_until',
    rule,
    keep_until: until,
  });
  const erased = (category: ErasureCategory, kind: string, id: string | null, number: string | null): ErasureItem => ({
    category,
    kind,
    id,
    number,
    decision: 'erase_now',
    rule: null,
    keep_until: null,
  });

  const appointmentItems = appointments.map((a) =>
    isHeld(a, now)
      ? kept('appointments', 'appointment', a.id, a.appointment_number, recordsRule.id, recordsUntil(clinicDate(a.start_at, timeZone)))
      : erased('appointments', 'appointment', a.id, a.appointment_number),
  );
  const documentItems = documents.map((d) =>
    d.type === 'invoices'
      ? kept('documents', 'document', d.id, d.document_number, billingRule.id, billingUntil(d.created_at))
      : kept('documents', 'document', d.id, d.document_number, recordsRule.id, recordsUntil(clinicDate(d.created_at, timeZone))),
  );
  const invoices = listErasableInvoices(db, row.id);
  const untilOfInvoice = new Map(invoices.map((invoice) => [invoice.id, billingUntil(invoice.latest_at)]));
  const billingItems = [
    ...invoices.map((i) => kept('billing', 'invoice', i.id, i.invoice_number, billingRule.id, untilOfInvoice.get(i.id)!)),
    ...listErasableMoney(db, row.id).map((m) => kept('billing', m.kind, m.id, m.number, billingRule.id, untilOfInvoice.get(m.invoice_id)!)),
  ];
  const keptItems = [...appointmentItems, ...documentItems, ...billingItems].filter((item) => item.decision === 'keep_until');
  // The kept fields go with the longest-kept item, under its rule; with none, they go now.
  const longest = keptItems.reduce<ErasureItem | undefined>(
    (found, item) => (found === undefined || item.keep_until! > found.keep_until! ? item : found),
    undefined,
  );
  const contactItems = CONTACT_FIELDS.filter((spec) => holdsValue(spec, row)).map((spec) =>
    KEPT_FIELD.test(spec.name) && longest !== undefined
      ? kept('contact', 'field', spec.name, null, longest.rule!, longest.keep_until!)
      : erased('contact', 'field', spec.name, null),
  );
  return [
    ...contactItems,
    ...appointmentItems,
    ...documentItems,
    ...billingItems,
    ...listPatientReminderIds(db, row.id).map((id) => erased('reminders', 'reminder', id, null)),
    ...listPatientReplyIds(db, row.id).map((id) => erased('reminders', 'reply', id, null)),
    ...listPatientNotificationIds(db, row.id).map((id) => erased('reminders', 'notification', id, null)),
    ...(countPatientFeedEvents(db, row.id) > 0 ? [erased('change_feed', 'events', null, null)] : []),
    // The trail is one line, always: it is kept whole whatever it holds of the patient.
    { ...erased('audit', 'trail', null, null), decision: 'keep' as const, rule: 'AUDIT' },
  ];
}

/** The items grouped by category, decision, rule and day, in the items' order; the feed and the trail counted by their events. */
export function erasureSummary(db: Db, patientId: string, items: readonly ErasureItem[]): ErasureGroup[] {
  const groups = new Map<string, ErasureGroup>();
  for (const item of items) {
    const key = `${item.category}|${item.decision}|${item.rule}|${item.keep_until}`;
    const group = groups.get(key);
    if (group !== undefined) group.count += 1;
    else {
      groups.set(key, { category: item.category, decision: item.decision, rule: item.rule, keep_until: item.keep_until, count: 1 });
    }
  }
  for (const group of groups.values()) {
    if (group.category === 'change_feed') group.count = countPatientFeedEvents(db, patientId);
    if (group.category === 'audit') group.count = countPatientAuditEvents(db, patientId);
  }
  return [...groups.values()];
}
