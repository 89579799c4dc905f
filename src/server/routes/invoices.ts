import { CREATE_INVOICE } from '../../domain/invoices/create-invoice.js';
import { CREATE_CREDIT_NOTE } from '../../domain/invoices/credit-invoice.js';
import { LIST_INVOICES } from '../../domain/invoices/list-invoices.js';
import { READ_INVOICE } from '../../domain/invoices/read-invoice.js';
import { VOID_INVOICE } from '../../domain/invoices/void-invoice.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/**
 * POST /invoices (1.3.0), GET /invoices and GET /invoices/{invoice_id} (1.1.0), POST /invoices/{invoice_id}/void (1.2.0),
 * POST /invoices/{invoice_id}/credit-notes (1.3.0): billing module.
 */
export const invoiceOperations: readonly Operation[] = [
  useCaseOperation(LIST_INVOICES, {
    method: 'get',
    path: '/invoices',
    operationId: 'listInvoices',
    description:
      'Newest first. An unknown `patient_id` matches nothing. Without `limit`, the whole list in one answer (as in 1.0.0). Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Invoice',
      paged: true,
      description: 'The matching invoices',
      example: examples.invoiceListExample,
    },
  }),
  useCaseOperation(CREATE_INVOICE, {
    method: 'post',
    path: '/invoices',
    operationId: 'createInvoice',
    description:
      'Issues an invoice (status `issued`, nothing paid), numbered INV-<year of issue, clinic time>-NNNNNN, as `clinic invoice create`. ' +
      '`issued_at` is a date-time, or a date meaning midnight clinic time; without it, now. A patient owes in one currency: an invoice ' +
      'in another while one is open is 422 `INVOICE_CURRENCY_MISMATCH`. Repeating an `Idempotency-Key` with the same request within ' +
      '24 hours answers the first status and body with `Idempotent-Replayed: true` and records nothing. Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:write',
    bodyExample: examples.invoiceRequestExample,
    result: {
      kind: 'model',
      status: 201,
      model: 'InvoiceDetail',
      description:
        'The invoice was issued, or an earlier one with this Idempotency-Key is replayed: as GET /invoices/{invoice_id} gives it',
      example: examples.newInvoiceExample,
    },
  }),
  useCaseOperation(READ_INVOICE, {
    method: 'get',
    path: '/invoices/{invoice_id}',
    operationId: 'getInvoice',
    description: 'Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'InvoiceDetail',
      description: 'The invoice, its patient and its payments',
      example: examples.invoiceDetailExample,
    },
  }),
  useCaseOperation(VOID_INVOICE, {
    method: 'post',
    path: '/invoices/{invoice_id}/void',
    operationId: 'voidInvoice',
    description:
      'Allowed while nothing is paid on the invoice (never paid, or every payment refunded): it becomes `void` with balance 0, ' +
      'owes nothing, takes no payment (409 `INVOICE_VOID`) and keeps its number. Voiding a void invoice changes nothing ' +
      '(the first reason stays). Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:write',
    bodyExample: examples.voidRequestExample,
    answer: (_ctx, { invoice }) => invoice,
    result: {
      kind: 'model',
      status: 200,
      model: 'InvoiceDetail',
      description: 'The invoice as it now stands, as GET /invoices/{invoice_id} gives it',
      example: examples.invoiceDetailExample,
    },
  }),
  useCaseOperation(CREATE_CREDIT_NOTE, {
    method: 'post',
    path: '/invoices/{invoice_id}/credit-notes',
    operationId: 'createCreditNote',
    description:
      'A credit note lowers what the invoice asks (it asked too much, or goodwill): numbered CN-<year>-NNNNNN, never deleted; ' +
      'money moves only with payments and refunds. The balance becomes total − amount_credited − (paid − refunded); a balance ' +
      'of 0 with money kept is `paid`. More than the balance is 422 `CREDIT_EXCEEDS_BALANCE` (`detail.balance`); all of it on ' +
      'an invoice nothing is paid on is 409 `INVOICE_FULLY_CREDITED` (void it instead). Repeating an `Idempotency-Key` with the ' +
      'same request within 24 hours answers the first status and body with `Idempotent-Replayed: true` and records nothing; ' +
      'the key space is shared with payments and refunds. Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:write',
    bodyExample: examples.creditNoteRequestExample,
    result: {
      kind: 'model',
      status: 201,
      model: 'InvoiceDetail',
      description:
        'The credit note was made, or an earlier one with this Idempotency-Key is replayed: the invoice as GET /invoices/{invoice_id} gives it',
      example: examples.creditedInvoiceExample,
    },
  }),
];
