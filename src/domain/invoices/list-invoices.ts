import { listInvoiceRows } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { INVOICE_QUERY_FIELDS } from '../../fields/billing-fields.js';
import { fieldsValidator } from '../validation/validate.js';
import { presentInvoice, type Invoice } from './present-invoice.js';

const invoiceQuery = fieldsValidator(INVOICE_QUERY_FIELDS, 'query');

/**
 * The clinic's invoices, newest first (GET /invoices, `clinic invoice list`), optionally one
 * patient's and optionally only those with a balance above zero. An unknown patient_id is a
 * filter that matches nothing, not an error.
 */
export function listInvoices(db: Db, query: unknown): Invoice[] {
  const values = invoiceQuery.parse(query, { timeZone: 'UTC' });
  return listInvoiceRows(db, { patientId: values.patient_id ?? null, unpaid: values.unpaid }).map(presentInvoice);
}
