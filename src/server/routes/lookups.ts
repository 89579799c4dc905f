import Router from '@koa/router';
import { waitWhileBusy } from '../../db/busy-wait.js';
import type { Db } from '../../db/open-database.js';
import { listDoctors, listServices } from '../../domain/catalog.js';
import { listDocumentTypes, listPaymentMethods } from '../../domain/lookups.js';
import { API_PREFIX } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import type { ClinicState } from '../state.js';

/**
 * The lookup lists. Document types and payment methods are static and public (no patient data,
 * decisions.md §2; a bad Authorization header there is ignored); services and doctors need a key.
 */
export function lookupsRouter(db: Db): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.get('/document-types', (ctx) => {
    ctx.body = listDocumentTypes();
  });
  router.get('/payment-methods', (ctx) => {
    ctx.body = listPaymentMethods();
  });
  router.get('/services', authorize(db, 'lookups:read'), async (ctx) => {
    ctx.body = await waitWhileBusy(() => listServices(db));
  });
  router.get('/doctors', authorize(db, 'lookups:read'), async (ctx) => {
    ctx.body = await waitWhileBusy(() => listDoctors(db));
  });
  return router;
}
