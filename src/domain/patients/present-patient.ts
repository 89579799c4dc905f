import type { PatientRow } from '../../db/patients.js';
import { presentColumns } from '../../fields/columns.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { PATIENT_READ_ONLY_FIELDS, PATIENT_STORED_FIELDS, type PATIENT_RESPONSE_FIELDS } from '../../fields/patient-fields.js';
import { centsToText } from '../validation/decimal.js';

/** The Patient of spec 2.2: every stored field plus the identifiers and balances. */
export type Patient = ResponseOf<typeof PATIENT_RESPONSE_FIELDS>;

/** The fields a patient row carries in columns of their own name, in the response's order. */
const PRESENTED_COLUMNS = [...PATIENT_STORED_FIELDS, ...PATIENT_READ_ONLY_FIELDS];

/** What a patient owes in one currency: the sum of the balances of their open invoices in it. */
export interface OwedInCurrency {
  currency: string;
  cents: number;
}

/** What the patient owes: in every currency of their open invoices, and the amount 1.0.0's two fields name. */
export interface PatientBalance {
  /** Per currency, by currency code; empty when nothing is owed. */
  owed: readonly OwedInCurrency[];
  /** What `outstanding_balance` and `outstanding_currency` say (outstanding-balance.ts); null when nothing is owed. */
  headline: OwedInCurrency | null;
}

/** Decimal-string form of a balance: "0" when nothing is owed (the spec's default), else e.g. "120.50". */
export function balanceText(cents: number): string {
  return cents === 0 ? '0' : centsToText(cents);
}

/** The balance fields of a Patient and a PatientSummary: 1.0.0's one amount and currency, and every currency owed. */
export function presentBalance(
  balance: PatientBalance,
): Pick<Patient, 'outstanding_balance' | 'outstanding_currency' | 'outstanding_balances'> {
  return {
    outstanding_balance: balanceText(balance.headline?.cents ?? 0),
    outstanding_currency: balance.headline?.currency ?? null,
    outstanding_balances: balance.owed.map((owed) => ({ currency: owed.currency, amount: centsToText(owed.cents) })),
  };
}

/** The API shape of a patient row (spec 2.2). */
export function presentPatient(row: PatientRow, balance: PatientBalance): Patient {
  const { outstanding_balances, ...oneAmount } = presentBalance(balance);
  const identity = {
    id: row.id,
    patient_number: row.patient_number,
    is_active: row.is_active === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...oneAmount,
  };
  const patient = presentColumns<Patient>(PRESENTED_COLUMNS, row, identity);
  // Set last, so that `version` (1.2.0) and then every currency owed follow the fields of 1.0.0 in their order.
  patient.version = row.version;
  patient.outstanding_balances = outstanding_balances;
  // 1.3.0, last.
  patient.erased_at = row.erased_at;
  return patient;
}
