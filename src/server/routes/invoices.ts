import { errors } from '../../domain/errors.js';
import { INVOICE_LIST_QUERY_FIELDS, listInvoices } from '../../domain/invoices/list-invoices.js';
import { readInvoice } from '../../domain/invoices/read-invoice.js';
import { INVOICE_PATH_FIELDS } from '../../fields/billing-fields.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** GET /invoices and GET /invoices/{invoice_id} (1.1.0), billing module. */
export const invoiceOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices with their outstanding balance',
    description:
      'Newest first. An unknown `patient_id` matches nothing. Without `limit`, the whole list in one answer (as in 1.0.0). Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    module: 'billing',
    queryFields: INVOICE_LIST_QUERY_FIELDS,
    result: {
      kind: 'model',
      status: 200,
      model: 'Invoice',
      paged: true,
      description: 'The matching invoices',
      example: examples.invoiceListExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        listInvoices(db, ctx.query),
  },
  {
    method: 'get',
    path: '/invoices/{invoice_id}',
    operationId: 'getInvoice',
    summary: 'Read an invoice with its payments',
    description: 'Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    module: 'billing',
    pathFields: INVOICE_PATH_FIELDS,
    refusals: [errors.invoiceNotFound()],
    result: {
      kind: 'model',
      status: 200,
      model: 'InvoiceDetail',
      description: 'The invoice, its patient and its payments',
      example: examples.invoiceDetailExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        readInvoice(db, ctx.params.invoice_id),
  },
];
