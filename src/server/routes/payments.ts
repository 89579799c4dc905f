import { RECORD_PAYMENT } from '../../domain/payments/record-payment.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../operation.js';

/** POST /invoices/{invoice_id}/payments (payments module): 200, not 201 (spec 4). */
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
      headers: {
        'Idempotent-Replayed': {
          description: 'Present, and `true`, when this answer replays an earlier payment with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    },
    answer(ctx, { payment, replayed }) {
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return payment;
    },
  }),
];
