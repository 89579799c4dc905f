import { RECORD_PAYMENT } from '../../domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../domain/payments/refund-payment.js';
import * as examples from '../openapi/examples.js';
import { markReplayed, REPLAYED_HEADER, useCaseOperation, type Operation } from '../api/operation.js';

/** POST /invoices/{invoice_id}/payments: 200, not 201 (spec 4); POST /payments/{payment_id}/refunds (1.2.0): payments module. */
export const paymentOperations: readonly Operation[] = [
  useCaseOperation(RECORD_PAYMENT, {
    method: 'post',
    path: '/invoices/{invoice_id}/payments',
    operationId: 'recordPayment',
    description:
      'Final: a recorded payment is never edited or removed. Partial payments are allowed up to the remaining balance; ' +
      'when the balance reaches zero the invoice becomes `paid` and the patient is notified. Repeating an ' +
      '`Idempotency-Key` with the same request returns the original result (200, `Idempotent-Replayed: true`) and ' +
      'records nothing; with a different request it is refused. Requires the payments module.',
    tag: 'billing',
    scope: 'payments:write',
    bodyExample: examples.paymentRequestExample,
    result: {
      kind: 'model',
      status: 200,
      model: 'PaymentResult',
      description: 'The payment was recorded, or an earlier one with this Idempotency-Key is replayed (200, not 201)',
      example: examples.paymentResultExample,
      headers: REPLAYED_HEADER,
    },
    answer(ctx, { payment, replayed }) {
      markReplayed(ctx, replayed);
      return payment;
    },
  }),
  useCaseOperation(REFUND_PAYMENT, {
    method: 'post',
    path: '/payments/{payment_id}/refunds',
    operationId: 'refundPayment',
    description:
      'Gives back part or all of a payment, at most its amount less its earlier refunds. Final: a refund is never edited ' +
      "or removed. The invoice's `amount_paid` falls and its `balance` rises by the amount. `Idempotency-Key` works as for " +
      'payments, in the same key space: a replay answers 201 with `Idempotent-Replayed: true`. With `goodwill` (1.3.0) a credit ' +
      'note of the same amount and reason comes with the refund in one transaction, so what the invoice asks falls with the money ' +
      'and a paid invoice stays `paid` (`credit_note` in the answer). Requires the payments module.',
    tag: 'billing',
    scope: 'payments:write',
    bodyExample: examples.refundRequestExample,
    result: {
      kind: 'model',
      status: 201,
      model: 'Refund',
      description: 'The refund was recorded, or an earlier one with this Idempotency-Key is replayed',
      example: examples.refundExample,
      headers: REPLAYED_HEADER,
    },
    answer(ctx, { refund, replayed }) {
      markReplayed(ctx, replayed);
      return refund;
    },
  }),
];
