import assert from 'node:assert/strict';
import type { Db } from '../../src/db/open-database.js';

/**
 * For every invoice: its payments less its refunds add up to amount_paid, and paid + balance is the
 * total, never below zero; a void invoice has nothing paid and owes nothing.
 */
export function assertLedgerConsistent(db: Db): void {
  const rows = db
    .prepare<[], { id: string; status: string; total_cents: number; amount_paid_cents: number; balance_cents: number; payments: number }>(
      `SELECT i.id, i.status, i.total_cents, i.amount_paid_cents, i.balance_cents,
              (SELECT coalesce(sum(p.amount_cents), 0) FROM payments p WHERE p.invoice_id = i.id)
            - (SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.invoice_id = i.id) AS payments
       FROM invoices i`,
    )
    .all();
  assert.ok(rows.length > 0, 'no invoices to check');
  for (const row of rows) {
    assert.equal(row.payments, row.amount_paid_cents, `payments of ${row.id}`);
    if (row.status === 'void') assert.deepEqual([row.amount_paid_cents, row.balance_cents], [0, 0], `void ${row.id}`);
    else assert.equal(row.amount_paid_cents + row.balance_cents, row.total_cents, `total of ${row.id}`);
    assert.ok(row.balance_cents >= 0, `balance of ${row.id}`);
  }
}
