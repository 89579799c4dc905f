import type { PatientRow } from '../../db/patients.js';
import { presentColumns } from '../../fields/columns.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { PATIENT_READ_ONLY_FIELDS, PATIENT_STORED_FIELDS, type PATIENT_RESPONSE_FIELDS } from '../../fields/patient-fields.js';
import { centsToText } from '../validation/decimal.js';

/** The Patient of spec 2.2: every stored field plus the identifiers and balances. */
export type Patient = ResponseOf<typeof PATIENT_RESPONSE_FIELDS>;

/** The fields a patient row carries in columns of their own name, in the response's order. */
const PRESENTED_COLUMNS = [...PATIENT_STORED_FIELDS, ...PATIENT_READ_ONLY_FIELDS];

/** What the patient owes: the sum of the balances of their open invoices. */
export interface PatientBalance {
  balanceCents: number;
  currency: string | null;
}

/** Decimal-string form of a balance: "0" when nothing is owed (the spec's default), else e.g. "120.50". */
export function balanceText(cents: number): string {
  return cents === 0 ? '0' : centsToText(cents);
}

/** The API shape of a patient row (spec 2.2). */
export function presentPatient(row: PatientRow, balance: PatientBalance): Patient {
  const identity = {
    id: row.id,
    patient_number: row.patient_number,
    is_active: row.is_active === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    outstanding_balance: balanceText(balance.balanceCents),
    outstanding_currency: balance.currency,
  };
  const patient = presentColumns<Patient>(PRESENTED_COLUMNS, row, identity);
  // Set last, so that `version` (1.2.0) follows the fields of 1.0.0 in their order.
  patient.version = row.version;
  return patient;
}
