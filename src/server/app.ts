import Koa from 'koa';
import type Router from '@koa/router';
import type { Db } from '../db/open-database.js';
import type { ServerConfig } from './config.js';
import { handleErrors } from './middleware/handle-errors.js';
import { logRequests } from './middleware/log-requests.js';
import { routeFallback } from './middleware/route-fallback.js';
import { appointmentsRouter } from './routes/appointments.js';
import { documentsRouter } from './routes/documents.js';
import { invoicesRouter } from './routes/invoices.js';
import { lookupsRouter } from './routes/lookups.js';
import { openApiRouter } from './routes/openapi.js';
import { patientsRouter } from './routes/patients.js';
import { paymentsRouter } from './routes/payments.js';
import type { ClinicState } from './state.js';

/** Every router of the API, in the order they are mounted; test/server/openapi.test.ts compares their routes with the document. */
export function createRouters(db: Db, config: ServerConfig): Router<ClinicState>[] {
  return [
    lookupsRouter(db),
    patientsRouter(db, config),
    appointmentsRouter(db, config),
    documentsRouter(db, config),
    invoicesRouter(db),
    paymentsRouter(db, config),
    openApiRouter(config),
  ];
}

/**
 * The HTTP application over an open database. After the request log, errors are rendered by
 * one middleware mounted first; each resource's router follows; a request none of them answers ends in the JSON
 * 404/405 fallback.
 */
export function createApp(db: Db, config: ServerConfig): Koa<ClinicState> {
  const app = new Koa<ClinicState>();
  // Errors are logged (with request ids) by handleErrors; Koa's own stderr printing would
  // duplicate them without the id.
  app.silent = true;
  const routers = createRouters(db, config);
  app.use(logRequests(config.logger));
  app.use(handleErrors(config.logger));
  for (const router of routers) app.use(router.routes());
  app.use(routeFallback(routers));
  return app;
}
