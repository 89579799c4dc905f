import { preparedFor, type Db } from './open-database.js';
import { dayRowsSql, type DayRowInvoiceAndPatient } from './day-report.js';

/** A `credit_notes` row (1.3.0): only ever inserted (triggers refuse UPDATE and DELETE), as payments are. */
export interface CreditNoteRow {
  id: string;
  credit_note_number: string;
  invoice_id: string;
  amount_cents: number;
  reason: string;
  /** The goodwill refund it came with, or null. */
  refund_id: string | null;
  created_at: string;
}

/** A credit note as the end-of-day report lists it: with its invoice's number and currency and its patient. */
export interface DayCreditNoteRow extends DayRowInvoiceAndPatient {
  credit_note_id: string;
  credit_note_number: string;
  created_at: string;
  amount_cents: number;
  reason: string;
}

const COLUMNS = 'id, credit_note_number, invoice_id, amount_cents, reason, refund_id, created_at';

/** The credit notes made in [@from, @to), as the day's payments are read (credit_notes_by_created_at). */
const DAY_CREDIT_NOTES_SQL = dayRowsSql(
  'credit_notes',
  'c',
  'c.id AS credit_note_id, c.credit_note_number, c.created_at, c.amount_cents, c.reason',
);

const statements = preparedFor((db) => ({
  insert: db.prepare<CreditNoteRow>(
    `INSERT INTO credit_notes (${COLUMNS})
     VALUES (@id, @credit_note_number, @invoice_id, @amount_cents, @reason, @refund_id, @created_at)`,
  ),
  byInvoice: db.prepare<[string], CreditNoteRow>(`SELECT ${COLUMNS} FROM credit_notes WHERE invoice_id = ? ORDER BY seq`),
  byRefund: db.prepare<[string], CreditNoteRow>(`SELECT ${COLUMNS} FROM credit_notes WHERE refund_id = ?`),
  bumpCounter: db.prepare<[number]>(
    `INSERT INTO credit_note_counters (year, last_number) VALUES (?, 1)
     ON CONFLICT (year) DO UPDATE SET last_number = last_number + 1`,
  ),
  counter: db.prepare<[number], { last_number: number }>('SELECT last_number FROM credit_note_counters WHERE year = ?'),
  day: db.prepare<{ from: string; to: string }, DayCreditNoteRow>(DAY_CREDIT_NOTES_SQL),
}));

/** Stores a credit note. */
export function insertCreditNote(db: Db, row: CreditNoteRow): void {
  statements(db).insert.run(row);
}

/** An invoice's credit notes in the order they were made. */
export function listCreditNoteRows(db: Db, invoiceId: string): CreditNoteRow[] {
  return statements(db).byInvoice.all(invoiceId);
}

/** The credit note a goodwill refund came with, or undefined. */
export function findCreditNoteOfRefund(db: Db, refundId: string): CreditNoteRow | undefined {
  return statements(db).byRefund.get(refundId);
}

/**
 * The next number of `year`'s credit-note series (1, 2, ...). Call inside the transaction that
 * inserts the credit note: a rolled-back one gives its number back, a committed one never does.
 */
export function takeCreditNoteNumber(db: Db, year: number): number {
  const { bumpCounter, counter } = statements(db);
  bumpCounter.run(year);
  return counter.get(year)!.last_number;
}

/** Every credit note made from `from` (inclusive) to `to` (exclusive), UTC ISO instants, in the order made. */
export function listCreditNotesBetween(db: Db, from: string, to: string): DayCreditNoteRow[] {
  return statements(db).day.all({ from, to });
}
