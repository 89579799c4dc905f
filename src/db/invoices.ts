import type { InvoiceStatus } from '../fields/billing-fields.js';
import { preparedFor, type Db } from './open-database.js';

/** An `invoices` row; money in integer cents. */
export interface InvoiceRow {
  /** Creation order: the tie-break of the listing order. */
  seq: number;
  id: string;
  invoice_number: string;
  patient_id: string;
  status: InvoiceStatus;
  currency: string;
  total_cents: number;
  amount_paid_cents: number;
  balance_cents: number;
  issued_at: string;
  created_at: string;
  updated_at: string;
  /** When and why it was voided (1.2.0); null unless its status is void. */
  voided_at: string | null;
  void_reason: string | null;
  /** What its credit notes took off the total (1.3.0). */
  amount_credited_cents: number;
}

/** An invoice to insert: the row less what SQLite assigns, not void, nothing credited (the column's default). */
export type NewInvoiceRow = Omit<InvoiceRow, 'seq' | 'voided_at' | 'void_reason' | 'amount_credited_cents'>;

/** What voiding writes. */
export interface InvoiceVoid {
  id: string;
  voided_at: string;
  void_reason: string;
  updated_at: string;
}

/** Which invoices to list: one patient's or all, open ones only or all. */
export interface InvoiceFilter {
  patientId: string | null;
  unpaid: boolean;
}

/** The money columns a payment changes. */
export interface InvoicePaymentUpdate {
  id: string;
  status: InvoiceStatus;
  amount_paid_cents: number;
  balance_cents: number;
  updated_at: string;
}

/** The money columns a credit note changes (1.3.0), with a goodwill refund's amount paid. */
export interface InvoiceCreditUpdate extends InvoicePaymentUpdate {
  amount_credited_cents: number;
}

const COLUMNS =
  'id, invoice_number, patient_id, status, currency, total_cents, amount_paid_cents, balance_cents, issued_at, created_at, updated_at';

const SELECTED = `seq, ${COLUMNS}, voided_at, void_reason, amount_credited_cents`;

// Newest first, ties in creation order newest first: the order every index of invoices ends in.
// A page starts strictly after its cursor's (issued_at, seq); the first page after one that
// sorts after every invoice.
const NEWEST_FIRST = '(issued_at, seq) < (@after_issued_at, @after_seq) ORDER BY issued_at DESC, seq DESC LIMIT @limit';

/** Where a page starts: strictly after this (issued_at, seq), newest first. */
export interface InvoiceCursor {
  issued_at: string;
  seq: number;
}

/** After every invoice in newest-first order: no date-time text sorts after U+10FFFF. */
export const BEFORE_NEWEST_INVOICE: InvoiceCursor = { issued_at: '\u{10FFFF}', seq: Number.MAX_SAFE_INTEGER };

/** An erased patient's invoices are left out of every list (1.3.0, "Restriction"): one probe of patients' id per invoice. */
const NOT_RESTRICTED = 'NOT EXISTS (SELECT 1 FROM patients p WHERE p.id = invoices.patient_id AND p.erased_at IS NOT NULL)';

/**
 * One statement per filter rather than one with `(@x IS NULL OR ...)` terms: SQLite picks an
 * index when the statement is prepared, and only a literal `balance_cents > 0` lets it use the
 * partial index of open invoices.
 */
const LIST_SQL = {
  all: `SELECT ${SELECTED} FROM invoices WHERE ${NOT_RESTRICTED} AND ${NEWEST_FIRST}`,
  unpaid: `SELECT ${SELECTED} FROM invoices WHERE balance_cents > 0 AND ${NOT_RESTRICTED} AND ${NEWEST_FIRST}`,
  patient: `SELECT ${SELECTED} FROM invoices WHERE patient_id = @patientId AND ${NOT_RESTRICTED} AND ${NEWEST_FIRST}`,
  patientUnpaid: `SELECT ${SELECTED} FROM invoices WHERE patient_id = @patientId AND balance_cents > 0 AND ${NOT_RESTRICTED} AND ${NEWEST_FIRST}`,
} as const;

type ListParams = { patientId: string | null; after_issued_at: string; after_seq: number; limit: number };

function listSqlKey(filter: InvoiceFilter): keyof typeof LIST_SQL {
  if (filter.patientId === null) return filter.unpaid ? 'unpaid' : 'all';
  return filter.unpaid ? 'patientUnpaid' : 'patient';
}

/**
 * Every patient's open balance per currency, of those who owe in more than one. The open invoices
 * only, read once through the partial index invoices_open_by_issued_at (the planner would
 * otherwise walk invoices_by_patient, every invoice ever issued, for the grouping): they stay few
 * however many paid ones accumulate, so grouping them costs little.
 */
const OWING_IN_SEVERAL_CURRENCIES_SQL = `
  WITH open AS MATERIALIZED (
    SELECT patient_id, currency, balance_cents, issued_at FROM invoices INDEXED BY invoices_open_by_issued_at
     WHERE balance_cents > 0)
  SELECT p.patient_number, o.currency, sum(o.balance_cents) AS balance_cents, min(o.issued_at) AS oldest_issued_at
    FROM open o JOIN patients p ON p.id = o.patient_id
   WHERE o.patient_id IN (SELECT patient_id FROM open GROUP BY patient_id HAVING count(DISTINCT currency) > 1)
   GROUP BY p.patient_number, o.currency ORDER BY p.patient_number, o.currency`;

/**
 * What one patient owes, by currency: their open invoices from invoices_open_by_patient alone
 * (the index holds every column summed, so no invoice row is read).
 */
const OPEN_BALANCES_SQL = `
  SELECT currency, sum(balance_cents) AS balance_cents, min(issued_at) AS oldest_issued_at FROM invoices
   WHERE patient_id = ? AND balance_cents > 0 GROUP BY currency ORDER BY currency`;

/**
 * What each patient of a page owes, in one statement (a search page's fifty patients): their
 * open invoices from invoices_open_by_patient alone, patient by patient, as sumOpenBalances reads
 * one.
 */
const OPEN_BALANCES_OF_PATIENTS_SQL = `
  SELECT patient_id, currency, sum(balance_cents) AS balance_cents, min(issued_at) AS oldest_issued_at
    FROM invoices WHERE patient_id IN (SELECT value FROM json_each(?)) AND balance_cents > 0
   GROUP BY patient_id, currency ORDER BY patient_id, currency`;

const statements = preparedFor((db) => ({
  insert: db.prepare<NewInvoiceRow>(
    `INSERT INTO invoices (${COLUMNS})
     VALUES (@id, @invoice_number, @patient_id, @status, @currency, @total_cents, @amount_paid_cents, @balance_cents,
             @issued_at, @created_at, @updated_at)`,
  ),
  byId: db.prepare<[string], InvoiceRow>(`SELECT ${SELECTED} FROM invoices WHERE id = ?`),
  withPatient: db.prepare<[string], InvoiceWithPatientRow>(
    `SELECT i.seq, i.${COLUMNS.split(', ').join(', i.')}, i.voided_at, i.void_reason, i.amount_credited_cents,
            p.patient_number, p.first_name AS patient_first_name, p.last_name AS patient_last_name
       FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = ?`,
  ),
  // All four take the same parameter object; a statement without @patientId ignores it.
  list: {
    all: db.prepare<ListParams, InvoiceRow>(LIST_SQL.all),
    unpaid: db.prepare<ListParams, InvoiceRow>(LIST_SQL.unpaid),
    patient: db.prepare<ListParams, InvoiceRow>(LIST_SQL.patient),
    patientUnpaid: db.prepare<ListParams, InvoiceRow>(LIST_SQL.patientUnpaid),
  },
  bumpCounter: db.prepare<[number]>(
    `INSERT INTO invoice_counters (year, last_number) VALUES (?, 1)
     ON CONFLICT (year) DO UPDATE SET last_number = last_number + 1`,
  ),
  counter: db.prepare<[number], { last_number: number }>('SELECT last_number FROM invoice_counters WHERE year = ?'),
  // One patient's open invoices, from their own index alone.
  openBalances: db.prepare<[string], OpenBalanceRow>(OPEN_BALANCES_SQL),
  openBalancesOfPatients: db.prepare<[string], OpenBalanceRow & { patient_id: string }>(OPEN_BALANCES_OF_PATIENTS_SQL),
  owingInSeveralCurrencies: db.prepare<[], OpenBalanceRow & { patient_number: string }>(OWING_IN_SEVERAL_CURRENCIES_SQL),
  // Open invoices only: read through the partial index invoices_open_by_issued_at, not the whole table.
  openCountsByCurrency: db.prepare<[], { currency: string; invoices: number }>(
    `SELECT currency, count(*) AS invoices FROM invoices
     WHERE balance_cents > 0 GROUP BY currency ORDER BY currency`,
  ),
  voidInvoice: db.prepare<InvoiceVoid>(
    `UPDATE invoices SET status = 'void', balance_cents = 0, voided_at = @voided_at, void_reason = @void_reason,
       updated_at = @updated_at
     WHERE id = @id`,
  ),
  applyPayment: db.prepare<InvoicePaymentUpdate>(
    `UPDATE invoices SET status = @status, amount_paid_cents = @amount_paid_cents, balance_cents = @balance_cents,
       updated_at = @updated_at
     WHERE id = @id`,
  ),
  applyCredit: db.prepare<InvoiceCreditUpdate>(
    `UPDATE invoices SET status = @status, amount_paid_cents = @amount_paid_cents, balance_cents = @balance_cents,
       amount_credited_cents = @amount_credited_cents, updated_at = @updated_at
     WHERE id = @id`,
  ),
}));

/** Stores a new invoice. */
export function insertInvoice(db: Db, row: NewInvoiceRow): void {
  statements(db).insert.run(row);
}

/** The invoice with this id, or undefined. */
export function findInvoice(db: Db, id: string): InvoiceRow | undefined {
  return statements(db).byId.get(id);
}

/** An invoice with the number and name of its patient. */
export interface InvoiceWithPatientRow extends InvoiceRow {
  patient_number: string;
  patient_first_name: string;
  patient_last_name: string;
}

/** The invoice with this id and its patient's number and name, or undefined. */
export function findInvoiceWithPatient(db: Db, id: string): InvoiceWithPatientRow | undefined {
  return statements(db).withPatient.get(id);
}

/** Up to `limit` (all: null) of the invoices `filter` selects after `after`, newest first. */
export function listInvoiceRows(db: Db, filter: InvoiceFilter, after = BEFORE_NEWEST_INVOICE, limit: number | null = null): InvoiceRow[] {
  return statements(db).list[listSqlKey(filter)].all({
    patientId: filter.patientId,
    after_issued_at: after.issued_at,
    after_seq: after.seq,
    limit: limit ?? -1,
  });
}

/**
 * SQLite's plan for listInvoiceRows(filter), one line per step: lets tests and the benchmark
 * prove that each list is read from an index, in order, without a sort.
 */
export function explainInvoiceList(db: Db, filter: InvoiceFilter): string[] {
  return db
    .prepare<ListParams, { detail: string }>(`EXPLAIN QUERY PLAN ${LIST_SQL[listSqlKey(filter)]}`)
    .all({ patientId: filter.patientId, after_issued_at: BEFORE_NEWEST_INVOICE.issued_at, after_seq: BEFORE_NEWEST_INVOICE.seq, limit: -1 })
    .map((step) => step.detail);
}

/**
 * The next number of `year`'s invoice series (1, 2, ...). Call inside the transaction that
 * inserts the invoice: a rolled-back invoice gives its number back, a committed one never does.
 */
export function takeInvoiceNumber(db: Db, year: number): number {
  const { bumpCounter, counter } = statements(db);
  bumpCounter.run(year);
  return counter.get(year)!.last_number;
}

/** What a patient owes in one currency: the sum of its open balances, and when the oldest of them was issued. */
export interface OpenBalanceRow {
  currency: string;
  balance_cents: number;
  oldest_issued_at: string;
}

/** The sum of a patient's open balances per currency, by currency (empty when nothing is owed). */
export function sumOpenBalances(db: Db, patientId: string): OpenBalanceRow[] {
  return statements(db).openBalances.all(patientId);
}

/** sumOpenBalances of each of `patientIds`, by patient id, then currency (a patient who owes nothing has no row). */
export function sumOpenBalancesOfPatients(db: Db, patientIds: readonly string[]): (OpenBalanceRow & { patient_id: string })[] {
  return statements(db).openBalancesOfPatients.all(JSON.stringify(patientIds));
}

/** SQLite's plan for sumOpenBalancesOfPatients, one line per step (test/db/invoices.test.ts). */
export function explainOpenBalancesOfPatients(db: Db): string[] {
  return db
    .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${OPEN_BALANCES_OF_PATIENTS_SQL}`)
    .all('[]')
    .map((step) => step.detail);
}

/** SQLite's plan for sumOpenBalances, one line per step (test/db/invoices.test.ts). */
export function explainOpenBalances(db: Db): string[] {
  return db
    .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${OPEN_BALANCES_SQL}`)
    .all('')
    .map((step) => step.detail);
}

/**
 * The open balances of every patient who owes in two or more currencies (a refund can reopen an
 * invoice in one while another is open in the other), by patient number, then currency.
 */
export function listBalancesOfPatientsOwingInSeveralCurrencies(db: Db): (OpenBalanceRow & { patient_number: string })[] {
  return statements(db).owingInSeveralCurrencies.all();
}

/** SQLite's plan for listBalancesOfPatientsOwingInSeveralCurrencies, one line per step (test/db/invoices.test.ts). */
export function explainPatientsOwingInSeveralCurrencies(db: Db): string[] {
  return db
    .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${OWING_IN_SEVERAL_CURRENCIES_SQL}`)
    .all()
    .map((step) => step.detail);
}

/** How many invoices are open (a balance left) in each currency, by currency. */
export function countOpenInvoicesByCurrency(db: Db): { currency: string; invoices: number }[] {
  return statements(db).openCountsByCurrency.all();
}

/** Writes the money columns a payment changed. */
export function updateInvoiceAfterPayment(db: Db, update: InvoicePaymentUpdate): void {
  statements(db).applyPayment.run(update);
}

/** Writes the money columns a credit note changed (and a goodwill refund's amount paid): the table's CHECKs hold them to the total. */
export function updateInvoiceAfterCredit(db: Db, update: InvoiceCreditUpdate): void {
  statements(db).applyCredit.run(update);
}

/** Voids an invoice: nothing is owed on it any more (its status CHECKs require nothing paid). */
export function voidInvoiceRow(db: Db, update: InvoiceVoid): void {
  statements(db).voidInvoice.run(update);
}
