import Router from '@koa/router';
import { waitWhileBusy } from '../../db/busy-wait.js';
import type { Db } from '../../db/open-database.js';
import { listInvoices } from '../../domain/invoices/list-invoices.js';
import { API_PREFIX } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { requireModule } from '../middleware/require-module.js';
import type { ClinicState } from '../state.js';

/** GET /invoices (billing module). */
export function invoicesRouter(db: Db): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.get('/invoices', authorize(db, 'invoices:read'), requireModule(db, 'billing'), async (ctx) => {
    ctx.body = await waitWhileBusy(() => listInvoices(db, ctx.query));
  });
  return router;
}
