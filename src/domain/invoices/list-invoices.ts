import { BEFORE_NEWEST_INVOICE, listInvoiceRows } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { INVOICE_QUERY_FIELDS } from '../../fields/billing-fields.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { cursorIssues, decodeCursor, pageOf, type Page } from '../pagination.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { presentInvoice, type Invoice } from './present-invoice.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The query of GET /invoices: its 1.0.0 filters, and pagination from 1.1.0 (without `limit`, the whole list as in 1.0.0). */
export const INVOICE_LIST_QUERY_FIELDS = [...INVOICE_QUERY_FIELDS, ...pageQueryFields('the whole list')] as const;

const CURSOR = 'invoices';
const CURSOR_SHAPE = ['string', 'number'] as const;

/** Where the page after `cursor` starts, newest first. */
function cursorPosition(cursor: string) {
  const [issued_at, seq] = decodeCursor(cursor, CURSOR, CURSOR_SHAPE) as [string, number];
  return { issued_at, seq };
}

/**
 * The clinic's invoices, newest first (GET /invoices, `clinic invoice list`), optionally one
 * patient's and optionally only those with a balance above zero. An unknown patient_id is a
 * filter that matches nothing, not an error. Without `limit`, one page holds them all.
 */
export const LIST_INVOICES = defineUseCase({
  roles: ROLE_ROWS.readInvoices,
  summary: 'List invoices with their outstanding balance',
  module: 'billing',
  input: { query: INVOICE_LIST_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }) => cursorIssues(query, CURSOR, CURSOR_SHAPE),
  run(db, { query: values }): Page<Invoice> {
    const after = values.after === undefined ? BEFORE_NEWEST_INVOICE : cursorPosition(values.after);
    const filter = { patientId: values.patient_id ?? null, unpaid: values.unpaid };
    const limit = values.limit;
    if (limit === undefined) return { items: listInvoiceRows(db, filter, after).map(presentInvoice), next: null };
    return pageOf(listInvoiceRows(db, filter, after, limit + 1), limit, CURSOR, (row) => [row.issued_at, row.seq], presentInvoice);
  },
  audit: (page) => perDistinctPatient(page.items, (invoice) => invoice.patient_id, { action: 'invoice.read' }),
});

/** LIST_INVOICES on a connection of its own. */
export function listInvoices(db: Db, query: unknown): Page<Invoice> {
  return performUseCase(LIST_INVOICES, db, { query }, { source: 'cli', actor: null });
}
