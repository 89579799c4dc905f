import type { CONFIRMATION_STATES } from '../../fields/appointment-fields.js';

/** Who still owes a confirmation of an appointment (spec 2.5). */
export type ConfirmationState = (typeof CONFIRMATION_STATES)[number];

/** What the state is derived from: the two confirmation timestamps and, for legacy rows, the source. */
export interface ConfirmationFacts {
  clinic_confirmed_at: string | null;
  patient_confirmed_at: string | null;
  /** 1.3.0: the patient declined (a reply); null otherwise. */
  patient_declined_at?: string | null;
  booking_source: string;
}

/**
 * Booking sources whose appointments the patient made themselves, so that the clinic still owes
 * the confirmation. Only consulted for legacy rows that predate the confirmation timestamps.
 */
const PATIENT_BOOKING_SOURCES: ReadonlySet<string> = new Set(['online', 'portal']);

/**
 * The confirmation state of decisions.md §5: both timestamps → confirmed; only the clinic's →
 * awaiting_patient; only the patient's → awaiting_clinic; neither (a legacy row) →
 * awaiting_clinic for online or portal bookings, else n_a. A patient who declined (1.3.0) is
 * `declined`, whatever else holds.
 */
export function confirmationState(facts: ConfirmationFacts): ConfirmationState {
  if (facts.patient_declined_at !== null && facts.patient_declined_at !== undefined) return 'declined';
  const clinic = facts.clinic_confirmed_at !== null;
  const patient = facts.patient_confirmed_at !== null;
  if (clinic && patient) return 'confirmed';
  if (clinic) return 'awaiting_patient';
  if (patient) return 'awaiting_clinic';
  return PATIENT_BOOKING_SOURCES.has(facts.booking_source) ? 'awaiting_clinic' : 'n_a';
}
