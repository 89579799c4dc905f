import { buildPayment } from './builders.js';
import type { TestServer } from './test-server.js';

/** The billing requests the route tests make of `server`, each answering as the server did. */
export function billingRequests(server: TestServer) {
  return {
    /** POST /invoices/{invoice_id}/payments of `amount` in cash. */
    pay: (invoiceId: string, amount: string, headers: Record<string, string> = {}) =>
      server.request('POST', `/invoices/${invoiceId}/payments`, { body: buildPayment({ amount }), headers }),
    /** POST /payments/{payment_id}/refunds of `body`. */
    refund: (paymentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      server.request('POST', `/payments/${paymentId}/refunds`, { body, headers }),
    /** The body of GET /invoices/{invoice_id}. */
    detail: async (invoiceId: string) => (await server.request('GET', `/invoices/${invoiceId}`)).body,
  };
}
