import assert from 'node:assert/strict';
import type { Db } from '../../src/db/open-database.js';

/**
 * For every invoice: its payments less its refunds add up to amount_paid, its credit notes to
 * amount_credited (1.3.0), and paid + balance + credited is the total, never below zero; a void
 * invoice has nothing paid and owes nothing.
 */
export function assertLedgerConsistent(db: Db): void {
  const rows = db
    .prepare<
      [],
      {
        id: string;
        status: string;
        total_cents: number;
        amount_paid_cents: number;
        balance_cents: number;
        amount_credited_cents: number;
        payments: number;
        credit_notes: number;
      }
    >(
      `SELECT i.id, i.status, i.total_cents, i.amount_paid_cents, i.balance_cents, i.amount_credited_cents,
              (SELECT coalesce(sum(p.amount_cents), 0) FROM payments p WHERE p.invoice_id = i.id)
            - (SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.invoice_id = i.id) AS payments,
              (SELECT coalesce(sum(c.amount_cents), 0) FROM credit_notes c WHERE c.invoice_id = i.id) AS credit_notes
       FROM invoices i`,
    )
    .all();
  assert.ok(rows.length > 0, 'no invoices to check');
  for (const row of rows) {
    assert.equal(row.payments, row.amount_paid_cents, `payments of ${row.id}`);
    assert.equal(row.credit_notes, row.amount_credited_cents, `credit notes of ${row.id}`);
    if (row.status === 'void') assert.deepEqual([row.amount_paid_cents, row.balance_cents], [0, 0], `void ${row.id}`);
    else assert.equal(row.amount_paid_cents + row.balance_cents + row.amount_credited_cents, row.total_cents, `total of ${row.id}`);
    assert.ok(row.balance_cents >= 0, `balance of ${row.id}`);
  }
}
