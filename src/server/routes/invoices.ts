import { listInvoices } from '../../domain/invoices/list-invoices.js';
import { INVOICE_QUERY_FIELDS } from '../../fields/billing-fields.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** GET /invoices (billing module). */
export const invoiceOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices with their outstanding balance',
    description: 'Newest first. An unknown `patient_id` matches nothing. Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    module: 'billing',
    queryFields: INVOICE_QUERY_FIELDS,
    result: {
      kind: 'model',
      status: 200,
      model: 'Invoice',
      list: true,
      description: 'The matching invoices',
      example: examples.invoiceListExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        listInvoices(db, ctx.query),
  },
];
