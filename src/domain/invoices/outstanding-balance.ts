import {
  listBalancesOfPatientsOwingInSeveralCurrencies,
  sumOpenBalances,
  sumOpenBalancesOfPatients,
  type OpenBalanceRow,
} from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import type { OwedInCurrency, PatientBalance } from '../patients/present-patient.js';
import { clinicCurrency } from '../settings.js';
import { centsToText } from '../validation/decimal.js';

/** What a patient with no open invoice owes: nothing, in no currency. */
export const NOTHING_OWED: PatientBalance = Object.freeze({ owed: Object.freeze([]), headline: null });

/**
 * The one amount that 1.0.0's `outstanding_balance` and `outstanding_currency` can say, of a
 * patient who owes in several currencies (docs/design-choices.md): what is owed in the clinic's
 * currency when some is, else in the currency whose oldest open invoice is the oldest (the
 * longest overdue). Every currency is in `outstanding_balances`.
 */
function headlineOf(rows: readonly OpenBalanceRow[], clinic: string): OpenBalanceRow {
  const inClinicCurrency = rows.find((row) => row.currency === clinic);
  if (inClinicCurrency !== undefined) return inClinicCurrency;
  return rows.reduce((oldest, row) => (row.oldest_issued_at < oldest.oldest_issued_at ? row : oldest));
}

const owedOf = (row: OpenBalanceRow): OwedInCurrency => ({ currency: row.currency, cents: row.balance_cents });

/** A patient's balance from their open balances per currency (by currency); the clinic currency is asked only when there are several. */
function balanceOf(rows: readonly OpenBalanceRow[], clinic: () => string): PatientBalance {
  if (rows.length === 0) return NOTHING_OWED;
  const headline = rows.length === 1 ? rows[0]! : headlineOf(rows, clinic());
  return { owed: rows.map(owedOf), headline: owedOf(headline) };
}

/**
 * What a patient owes: the sum of the balances of their open invoices in each currency, by
 * currency, and the one 1.0.0's two fields name; nothing while no invoice is open.
 * createInvoice keeps a patient's open invoices in one currency, but a refund can reopen an
 * invoice in another, so there may be several.
 */
export function outstandingBalance(db: Db, patientId: string): PatientBalance {
  return balanceOf(sumOpenBalances(db, patientId), () => clinicCurrency(db));
}

/** outstandingBalance of each of `patientIds` (a page of a list), in one statement; a patient who owes nothing is not in the map. */
export function outstandingBalances(db: Db, patientIds: readonly string[]): Map<string, PatientBalance> {
  const openByPatient = new Map<string, OpenBalanceRow[]>();
  for (const row of sumOpenBalancesOfPatients(db, patientIds)) {
    const open = openByPatient.get(row.patient_id);
    if (open === undefined) openByPatient.set(row.patient_id, [row]);
    else open.push(row);
  }
  let clinic: string | undefined;
  const clinicOnce = () => (clinic ??= clinicCurrency(db));
  return new Map([...openByPatient].map(([patientId, open]) => [patientId, balanceOf(open, clinicOnce)]));
}

/** `40.00 EUR + 4000.00 JPY`: what is owed in every currency, for people. */
export function owedText(owed: readonly OwedInCurrency[]): string {
  return owed.map((amount) => `${centsToText(amount.cents)} ${amount.currency}`).join(' + ');
}

/** A patient who owes in two or more currencies, with what they owe in each (by currency). */
export interface PatientOwingInSeveralCurrencies {
  patient_number: string;
  owed: OwedInCurrency[];
}

/** Every patient who owes in two or more currencies, by patient number (`clinic check`). */
export function patientsOwingInSeveralCurrencies(db: Db): PatientOwingInSeveralCurrencies[] {
  const patients = new Map<string, OwedInCurrency[]>();
  for (const row of listBalancesOfPatientsOwingInSeveralCurrencies(db)) {
    const owed = patients.get(row.patient_number) ?? [];
    owed.push(owedOf(row));
    patients.set(row.patient_number, owed);
  }
  return [...patients].map(([patient_number, owed]) => ({ patient_number, owed }));
}
