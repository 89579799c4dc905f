import { sumOpenBalances } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import type { PatientBalance } from '../patients/present-patient.js';

/** What a patient with no open invoice owes: zero, in no currency. */
export const NOTHING_OWED: PatientBalance = Object.freeze({ balanceCents: 0, currency: null });

/**
 * What a patient owes: the sum of the balances of their open invoices, in their currency; zero
 * and no currency when nothing is open. createInvoice keeps a patient's open invoices in one
 * currency, so there is at most one sum.
 */
export function outstandingBalance(db: Db, patientId: string): PatientBalance {
  const [owed] = sumOpenBalances(db, patientId);
  return owed === undefined ? NOTHING_OWED : { balanceCents: owed.balance_cents, currency: owed.currency };
}
