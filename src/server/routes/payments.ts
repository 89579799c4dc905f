import Router from '@koa/router';
import { waitWhileBusy } from '../../db/busy-wait.js';
import type { Db } from '../../db/open-database.js';
import { recordPayment } from '../../domain/payments/record-payment.js';
import { API_PREFIX, type ServerConfig } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { jsonBody } from '../middleware/json-body.js';
import { requireModule } from '../middleware/require-module.js';
import type { ClinicState } from '../state.js';

/** POST /invoices/{invoice_id}/payments (payments module): 200, not 201 (spec 4). */
export function paymentsRouter(db: Db, config: ServerConfig): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.post(
    '/invoices/:invoice_id/payments',
    authorize(db, 'payments:write'),
    requireModule(db, 'payments'),
    jsonBody(config.jsonBodyLimitBytes),
    async (ctx) => {
      const request = { path: ctx.params, headers: ctx.headers, body: ctx.state.body };
      const { payment, replayed } = await waitWhileBusy(() => recordPayment(db, request));
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = 200;
      ctx.body = payment;
    },
  );
  return router;
}
