/**
 * How ids and the numbers on paper are written (decisions.md §3): the one place their patterns
 * live, for validation (structs.ts), the desk's references (references.ts, find-doctor.ts),
 * search (search-terms.ts) and the invoice number a new invoice gets (create-invoice.ts).
 * `patient_number`, `appointment_number` and `document_number` themselves are made by SQLite
 * from `seq` (schema.sql: printf('P-%06d', seq)).
 */

/** A UUID as an id is written, in any case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID as ids are stored and answered: lower case (decisions.md §3: read in any case). */
export const canonicalId = (uuid: string): string => uuid.toLowerCase();

/** The id `text` names when it is a UUID in any case, as stored (canonicalId); else undefined. */
export function idOf(text: string): string | undefined {
  return UUID_PATTERN.test(text) ? canonicalId(text) : undefined;
}

/** P-000042, p-42: the patient's seq in group 1. */
const PATIENT_NUMBER = /^P-0*(\d{1,15})$/i;
/** The same, or its digits alone (`42`, `000042`), as a search word may give it. */
const PATIENT_NUMBER_OR_DIGITS = /^(?:P-)?0*(\d{1,15})$/i;
const APPOINTMENT_NUMBER = /^A-0*(\d{1,15})$/i;
const DOCUMENT_NUMBER = /^D-0*(\d{1,15})$/i;
const INVOICE_NUMBER = /^INV-(\d{4})-0*(\d{1,15})$/i;

/** Zero padding of the numbers on paper: INV-2026-000001. */
const NUMBER_DIGITS = 6;

/** The seq a patient number names (`P-000042`, `p-42`; with `digitsAlone` also `42`), or undefined. */
export function patientSeqOf(text: string, { digitsAlone = false } = {}): number | undefined {
  const match = (digitsAlone ? PATIENT_NUMBER_OR_DIGITS : PATIENT_NUMBER).exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The seq an appointment number names (`A-000017`, `a-17`), or undefined. */
export function appointmentSeqOf(text: string): number | undefined {
  const match = APPOINTMENT_NUMBER.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The seq a document number names (`D-000017`, `d-17`), or undefined. */
export function documentSeqOf(text: string): number | undefined {
  const match = DOCUMENT_NUMBER.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** Invoice number `n` of `year`: `INV-2026-000002`. */
export function invoiceNumber(year: number | string, n: number | string): string {
  return `INV-${year}-${String(n).padStart(NUMBER_DIGITS, '0')}`;
}

/** Credit note `n` of `year` (1.3.0): `CN-2026-000002`, a series of its own per calendar year. */
export function creditNoteNumber(year: number | string, n: number | string): string {
  return `CN-${year}-${String(n).padStart(NUMBER_DIGITS, '0')}`;
}

/** The invoice number `text` names, as stored (`inv-2026-2` → `INV-2026-000002`), or undefined. */
export function invoiceNumberOf(text: string): string | undefined {
  const match = INVOICE_NUMBER.exec(text);
  return match ? invoiceNumber(match[1]!, match[2]!) : undefined;
}
